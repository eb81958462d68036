import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';

/**
 * A string-keyed map (`additionalProperties: <value>`), the only map shape a structural CRD schema
 * accepts.
 *
 * `Type.Record` is not used on purpose: TypeBox 1 renders it as `patternProperties`, which CRDs reject.
 * Key syntax cannot be expressed here (CRDs have no `propertyNames`); validate keys where the map is
 * written and document the rule in `description`.
 */
export function MapOf<V extends TSchema>(
  value: V,
  options: { readonly description: string; readonly maxProperties: number },
): TUnsafe<Record<string, Static<V>>> {
  return Type.Unsafe<Record<string, Static<V>>>({ type: 'object', additionalProperties: value, ...options });
}
