// What every PasswordStore does, run against each implementation (in memory, Kubernetes Secrets).
import { expect, it } from 'vitest';
import type { PasswordStore } from './ports.ts';

export function passwordStoreContract(make: () => Promise<{ store: PasswordStore; userId: () => Promise<string> }>): void {
  it('has no password for a user until one is set, then the latest one', async () => {
    const { store, userId } = await make();
    const user = await userId();
    expect(await store.getPasswordHash(user)).toBeUndefined();
    await store.setPasswordHash(user, '$argon2id$v=19$m=19456,t=2,p=1$first$hash');
    expect(await store.getPasswordHash(user)).toBe('$argon2id$v=19$m=19456,t=2,p=1$first$hash');
    await store.setPasswordHash(user, '$argon2id$v=19$m=19456,t=2,p=1$second$hash');
    expect(await store.getPasswordHash(user)).toBe('$argon2id$v=19$m=19456,t=2,p=1$second$hash');
  });

  it('keeps users apart', async () => {
    const { store, userId } = await make();
    const [a, b] = [await userId(), await userId()];
    await store.setPasswordHash(a, '$argon2id$v=19$m=19456,t=2,p=1$a$hash');
    expect(await store.getPasswordHash(b)).toBeUndefined();
  });
}
