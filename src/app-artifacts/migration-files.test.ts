import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_MIGRATION_BYTES } from '../apis/v1alpha1/migrations.ts';
import { parseArtifact } from './artifact.ts';
import { ArtifactError, ArtifactTooLargeError } from './errors.ts';
import { artifactFromFiles } from '../../runtime-server/engine/testing/artifact-builder.ts';

const WORKER = 'export default { fetch() { return new Response("ok"); } };';
const CONFIG = JSON.stringify({ migrations: { directory: 'migrations', database: 'notes' } });

describe('parseArtifact: migrations', () => {
  it('reads the folder cloudwright.json names, sorted by name, with each file’s checksum, wherever the config comes in the archive', async () => {
    const init = 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);';
    const artifact = await parseArtifact(
      artifactFromFiles({ 'worker.js': WORKER, 'migrations/0002_index.sql': 'CREATE INDEX n ON notes(body);', 'migrations/0001_init.sql': init, 'schema.sql': 'select 1', 'cloudwright.json': CONFIG }),
    );
    expect(artifact.migrations?.database).toBe('notes');
    expect(artifact.migrations?.files.map((f) => f.name)).toEqual(['0001_init.sql', '0002_index.sql']);
    expect(artifact.migrations?.files[0]).toEqual({ name: '0001_init.sql', sql: init, checksum: createHash('sha256').update(init).digest('hex') });
  });

  it('none without migrations in cloudwright.json (.sql files stay text modules)', async () => {
    const artifact = await parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'migrations/0001_init.sql': 'select 1' }));
    expect(artifact.migrations).toBeUndefined();
    expect(artifact.modules.map((m) => m.name)).toContain('migrations/0001_init.sql');
  });

  it.each([
    [{ 'migrations/init.sql': 'select 1' }, /"migrations\/init.sql" is not a migration name/],
    [{ 'migrations/2_b.sql': 'select 1', 'migrations/10_a.sql': 'select 1' }, /"migrations\/2_b.sql" sorts after "10_a.sql" but its number is not higher/],
    [{ 'migrations/0001_a.sql': 'select 1', 'migrations/0001_b.sql': 'select 1' }, /"migrations\/0001_b.sql" sorts after "0001_a.sql"/],
    [{ 'migrations/0001_a.sql': 'create table a(x);\0create table b(x);' }, /"migrations\/0001_a.sql" holds a NUL byte, where SQLite would end the file/],
  ])('refuses badly named files and a NUL in one, naming the file (400)', async (files, message) => {
    const err = await parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': CONFIG, ...files })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArtifactError);
    expect((err as Error).message).toMatch(message);
  });

  it('refuses a bad migrations field (400)', async () => {
    const bad = JSON.stringify({ migrations: { directory: '../x', database: 'notes' } });
    await expect(parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': bad }))).rejects.toThrow(/migrations.directory must be a folder/);
    const noDb = JSON.stringify({ migrations: { directory: 'migrations' } });
    await expect(parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': noDb }))).rejects.toThrow(/migrations.database must name a database/);
  });

  it('refuses migrations past their bound (413)', async () => {
    const half = 'x'.repeat(MAX_MIGRATION_BYTES / 2 + 1);
    const err = await parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': CONFIG, 'migrations/0001_a.sql': half, 'migrations/0002_b.sql': half })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArtifactTooLargeError);
    expect((err as Error).message).toMatch(/more than 524288 bytes/);
  });
});
