import { Type, type Static, type TSchema, type TString, type TUnsafe } from 'typebox';

/** Options of {@link MapOf}. */
export interface MapOptions {
  readonly description: string;
  readonly maxProperties: number;
  /** Key syntax (length and pattern only); the CRD emitter turns it into a CEL rule over the keys. */
  readonly keys?: TString;
  /** CEL rules over the whole map (the kube-apiserver checks them; TypeBox does not). */
  readonly rules?: readonly { readonly rule: string; readonly message: string }[];
}

/**
 * A string-keyed map (`additionalProperties: <value>`), the only map shape a structural CRD schema
 * accepts. `Type.Record` is not used on purpose: TypeBox 1 renders it as `patternProperties`, which
 * CRDs reject.
 */
export function MapOf<V extends TSchema>(value: V, options: MapOptions): TUnsafe<Record<string, Static<V>>> {
  const { keys, rules, ...rest } = options;
  return Type.Unsafe<Record<string, Static<V>>>({
    type: 'object',
    additionalProperties: value,
    ...(keys === undefined ? {} : { propertyNames: keys }),
    ...(rules === undefined ? {} : { 'x-kubernetes-validations': rules }),
    ...rest,
  });
}
