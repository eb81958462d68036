import type { FastifyServerOptions } from 'fastify';
import { BadRequestError } from '../../src/errors.ts';

/**
 * A route's `schemaErrorFormatter` for a body whose root is a `oneOf` of shapes: failing that choice is
 * answered with `message`, which says what to send, rather than Ajv's "must match exactly one schema in
 * oneOf". Any other failure keeps the usual detail naming the field (problem-details.ts).
 */
type SchemaErrorFormatter = NonNullable<FastifyServerOptions['schemaErrorFormatter']>;

export function explainOneOf(message: string): SchemaErrorFormatter {
  return (errors, dataVar) => {
    if (dataVar === 'body' && errors.some((e) => e.keyword === 'oneOf' && e.instancePath === '')) return new BadRequestError(message);
    return new Error(`${dataVar} is invalid`);
  };
}

/** `{ required: [field] }` with none of `absent`: one branch of such a `oneOf`. */
export function shape(field: string, ...absent: string[]): Record<string, unknown> {
  return { required: [field], not: { anyOf: absent.map((name) => ({ required: [name] })) } };
}
