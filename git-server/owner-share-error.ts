import { PublicError } from '../src/errors.ts';

/**
 * A request refused because a shared bound of cw-git is reached: 429 when it is the owner's own share (retry once
 * one of its own has ended), 503 when it is the instance's. Each bound names its two codes.
 */
export class OwnerShareError<Code extends string> extends PublicError {
  readonly code: Code;
  constructor(scope: 'owner' | 'instance', codes: { readonly owner: Code; readonly instance: Code }, message: string, retryAfterSeconds: number) {
    super(scope === 'owner' ? 429 : 503, message, { 'retry-after': String(retryAfterSeconds) });
    this.code = scope === 'owner' ? codes.owner : codes.instance;
  }
}
