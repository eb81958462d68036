import type { HranaValue } from './hrana-types.ts';
import { SqlError } from '../sql/sql-error.ts';
import type { SqlValue } from '../sql/sql-value.ts';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Decodes a wire value; a malformed one is the client's fault, so it is a `HRANA_PROTO_ERROR`, never a crash. */
export function fromHrana(value: HranaValue): SqlValue {
  switch (value?.type) {
    case 'null':
      return null;
    case 'integer': {
      // BigInt() also accepts hex, binary and whitespace; the wire format is a plain decimal.
      if (typeof value.value !== 'string' || !/^-?\d{1,20}$/.test(value.value)) break;
      const n = BigInt(value.value);
      if (n < I64_MIN || n > I64_MAX) break;
      return n;
    }
    case 'float':
      if (typeof value.value !== 'number' || !Number.isFinite(value.value)) break;
      return value.value;
    case 'text':
      if (typeof value.value !== 'string') break;
      return value.value;
    case 'blob':
      if (typeof value.base64 !== 'string') break;
      return Buffer.from(value.base64, 'base64');
  }
  throw new SqlError('HRANA_PROTO_ERROR', `Invalid value: ${JSON.stringify(value)?.slice(0, 100)}`);
}

/** Encodes a value for the wire; JS numbers are floats here, because the engine returns integers as bigints. */
export function toHrana(value: SqlValue): HranaValue {
  if (value === null) return { type: 'null' };
  if (typeof value === 'bigint') return { type: 'integer', value: value.toString() };
  if (typeof value === 'number') return { type: 'float', value };
  if (typeof value === 'string') return { type: 'text', value };
  return { type: 'blob', base64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
}
