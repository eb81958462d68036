import type { PasswordStore } from './ports.ts';

/** An in-memory {@link PasswordStore}, for unit tests and the OpenAPI document's build. */
export class MemoryPasswordStore implements PasswordStore {
  readonly #hashes = new Map<string, string>();

  async getPasswordHash(userId: string): Promise<string | undefined> {
    return this.#hashes.get(userId);
  }

  async setPasswordHash(userId: string, hash: string): Promise<void> {
    this.#hashes.set(userId, hash);
  }
}
