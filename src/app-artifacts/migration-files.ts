import { createHash } from 'node:crypto';
import { MAX_MIGRATION_BYTES, MAX_MIGRATION_FILES, MIGRATION_FILE_PATTERN, type BuildMigrations, type MigrationFile } from '../apis/v1alpha1/migrations.ts';
import { ArtifactError, ArtifactTooLargeError } from './errors.ts';

/** `cloudwright.json`'s `migrations`: the folder of `.sql` files and the Database of the project they apply to. */
export interface MigrationsConfig {
  readonly directory: string;
  readonly database: string;
}

const NAME = new RegExp(MIGRATION_FILE_PATTERN);

/**
 * The text of the archive's `.sql` files, kept as they stream by (they are modules too) while they fit in
 * {@link MAX_MIGRATION_BYTES}: which of them are migrations is known only once `cloudwright.json` is read,
 * and it may come last in the archive.
 */
export class SqlFileTexts {
  readonly #texts = new Map<string, Buffer>();
  /** Files not kept because the ones before filled the bound. */
  readonly #dropped = new Set<string>();
  #bytes = 0;

  /** Passes `content` through, keeping a copy when it fits. */
  async *keep(path: string, size: number, content: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    const fits = this.#bytes + size <= MAX_MIGRATION_BYTES;
    if (fits) this.#bytes += size;
    else this.#dropped.add(path);
    const chunks: Uint8Array[] = [];
    for await (const chunk of content) {
      if (fits) chunks.push(chunk);
      yield chunk;
    }
    if (fits) this.#texts.set(path, Buffer.concat(chunks));
  }

  /**
   * The migrations `config` names, sorted by name, checked: names like `0001_init.sql` whose numbers rise in the
   * order of the names, at most {@link MAX_MIGRATION_FILES} files and {@link MAX_MIGRATION_BYTES} together.
   * @throws ArtifactError (400) naming the file, ArtifactTooLargeError (413)
   */
  migrations(config: MigrationsConfig): BuildMigrations {
    const prefix = `${config.directory}/`;
    const paths = [...this.#texts.keys(), ...this.#dropped].filter((p) => p.startsWith(prefix)).sort();
    if (paths.length > MAX_MIGRATION_FILES) {
      throw new ArtifactTooLargeError('migrationFiles', MAX_MIGRATION_FILES, `${config.directory}/ holds more than ${MAX_MIGRATION_FILES} migrations`);
    }
    if (paths.some((p) => this.#dropped.has(p))) {
      throw new ArtifactTooLargeError('migrationBytes', MAX_MIGRATION_BYTES, `the .sql files come to more than ${MAX_MIGRATION_BYTES} bytes; migrations must fit in that`);
    }
    const files = checkedMigrations(paths.map((path) => ({ path, name: path.slice(prefix.length), bytes: this.#texts.get(path) ?? Buffer.alloc(0) })));
    return { database: config.database, files };
  }
}

/**
 * Migration files checked and sorted for applying: names like `0001_init.sql` whose numbers rise in the order of
 * the names (`path`: how an error names the file). Pure.
 * @throws ArtifactError (400) naming the file
 */
export function checkedMigrations(entries: readonly { path: string; name: string; bytes: Buffer }[]): MigrationFile[] {
  const files: MigrationFile[] = [];
  let previous: { name: string; number: number } | undefined;
  for (const { path, name, bytes } of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!NAME.test(name)) {
      throw new ArtifactError(`${JSON.stringify(path)} is not a migration name: use a number, an underscore and a name, like 0001_init.sql (they apply in the order of their names)`);
    }
    const number = Number(name.slice(0, name.indexOf('_')));
    if (previous && number <= previous.number) {
      throw new ArtifactError(
        `${JSON.stringify(path)} sorts after ${JSON.stringify(previous.name)} but its number is not higher: pad the numbers to one width (0002_…, 0010_…) so the names sort in the order they apply`,
      );
    }
    // SQLite ends a script at a NUL: what follows one would never run, while the file is recorded as applied.
    if (bytes.includes(0)) throw new ArtifactError(`${JSON.stringify(path)} holds a NUL byte, where SQLite would end the file: remove it`);
    files.push({ name, checksum: createHash('sha256').update(bytes).digest('hex'), sql: bytes.toString('utf8') });
    previous = { name, number };
  }
  return files;
}
