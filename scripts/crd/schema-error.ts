/**
 * A schema that cannot become (part of) a CustomResourceDefinition. `path` names the offending place
 * in the object (`spec.members[*].role`, `spec.environment.*`), so the message alone says what to fix.
 */
export class CrdSchemaError extends Error {
  override readonly name = 'CrdSchemaError';
  readonly path: string;

  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.path = path;
  }
}
