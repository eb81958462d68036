import { SqlError } from '../sql/sql-error.ts';
import type { SqlValue } from '../sql/sql-value.ts';
import { SqlLexer } from '../../src/sql/sql-tokens.ts';

/** A parameter of a statement: its 1-based index and, for `:name`, `@name` and `$name`, the name with its sigil. */
export interface SqlParameter {
  index: number;
  name: string | null;
}

/**
 * The parameters of `sql`, numbered as SQLite numbers them: `?` takes the largest index so far plus one, `?NNN`
 * takes NNN, a name takes the next index the first time it is seen and the same index afterwards.
 *
 * Why we scan SQL ourselves: the `libsql` package binds an object of named values by asking SQLite for each
 * index's name, and panics (aborting the whole process) on an index without one (`?`, or a gap in `?NNN`). So we
 * always bind an array by index, and need the index of each name. The lexer skips strings, quoted identifiers
 * and comments, so a `?` or `:x` inside them is not taken for a parameter.
 */
export function sqlParameters(sql: string): SqlParameter[] {
  const parameters: SqlParameter[] = [];
  const byName = new Map<string, number>();
  let max = 0;
  const lexer = new SqlLexer(sql);
  for (let kind = lexer.next(); kind !== undefined; kind = lexer.next()) {
    if (kind !== 'parameter') continue;
    const text = lexer.text;
    if (text.startsWith('?')) {
      const index = text === '?' ? max + 1 : Number(text.slice(1));
      max = Math.max(max, index);
      parameters.push({ index, name: null });
    } else if (!byName.has(text)) {
      const index = ++max;
      byName.set(text, index);
      parameters.push({ index, name: text });
    }
  }
  return parameters;
}

// SQLite's default SQLITE_MAX_VARIABLE_NUMBER; a bound here keeps `?99999999` from allocating a huge array.
const MAX_PARAMETERS = 32766;

/**
 * The positional array to bind for `sql`: positional arguments take indexes 1..n, named ones the index of their
 * parameter. A name may be given with its sigil (`:id`) or without (`id`, matching `:id`, `@id` or `$id`), as
 * sqld accepts; `?3` takes the name `3` or `?3`. Parameters left without a value bind NULL, as in SQLite.
 */
export function bindingArray(sql: string, args: SqlValue[], namedArgs: { name: string; value: SqlValue }[]): SqlValue[] {
  const parameters = sqlParameters(sql);
  const count = Math.max(args.length, ...parameters.map((p) => p.index), 0);
  if (count > MAX_PARAMETERS) throw new SqlError('SQLITE_RANGE', `Too many SQL parameters: ${count}`);
  if (namedArgs.length > MAX_PARAMETERS) throw new SqlError('SQLITE_RANGE', `Too many named SQL arguments: ${namedArgs.length}`);
  const values: SqlValue[] = Array.from({ length: count }, (_, i) => args[i] ?? null);
  // Names looked up in maps, not by a search of the parameters per argument: that was quadratic, and one request
  // of a few hundred thousand arguments held its shard for minutes.
  const byName = new Map<string, number>();
  const byBareName = new Map<string, number>();
  for (const p of parameters) {
    if (p.name === null) continue;
    if (!byName.has(p.name)) byName.set(p.name, p.index);
    if (!byBareName.has(p.name.slice(1))) byBareName.set(p.name.slice(1), p.index);
  }
  for (const { name, value } of namedArgs) {
    // `?3` may also be named `3` or `?3` (the client's object args have no other way to reach a numbered one).
    const numbered = /^\??(\d+)$/.exec(name);
    const index = numbered ? Number(numbered[1]) : (byName.get(name) ?? (/^[:@$]/.test(name) ? undefined : byBareName.get(name)));
    if (index === undefined || index < 1 || index > count) continue;
    values[index - 1] = value;
  }
  return values;
}
