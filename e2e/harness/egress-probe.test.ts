// refusalReason finds workerd's reason for a refusal by the reference the app was shown; an error with no reference
// (`Network connection lost.`: workerd tried the connection) has no reason. An empty reference once matched the
// first refusal of any other URL in the log, so the e2e egress tests passed forms of a private address workerd had
// let through (review-183).
import { describe, expect, it } from 'vitest';
import { errorReference, refusalReason } from './egress-probe.ts';

const LOG = [
  'workerd/jsg/util.c++:320: error: e = rust/worker/ffi.rs:104: failed: connecting to 127.0.0.1:8081 is not allowed',
  'stack: /bin/workerd@2b5edc0; sentryErrorContext = jsgInternalError; wdErrId = spvhl3sru4u9pptf23geu3hf',
  'workerd/jsg/util.c++:320: error: e = rust/worker/ffi.rs:104: failed: connecting to 10.0.0.5:80 is not allowed',
  'stack: /bin/workerd@2b5edc0; sentryErrorContext = jsgInternalError; wdErrId = spvhl3sru4u9pptf23geu3hfx',
].join('\n');

describe('refusalReason', () => {
  it("finds workerd's reason under the reference the app was shown", () => {
    expect(refusalReason(LOG, 'spvhl3sru4u9pptf23geu3hf')).toBe('connecting to 127.0.0.1:8081 is not allowed');
    expect(refusalReason(LOG, 'spvhl3sru4u9pptf23geu3hfx')).toBe('connecting to 10.0.0.5:80 is not allowed');
    expect(refusalReason(LOG, 'ffff')).toBeUndefined();
  });

  it('has no reason for an error without a reference, which no refusal matches', () => {
    const lost = { reached: false, error: 'Error: Network connection lost.' };
    expect(errorReference(lost)).toBeUndefined();
    expect(refusalReason(LOG, errorReference(lost))).toBeUndefined();
    expect(refusalReason(LOG, '')).toBeUndefined();
    expect(refusalReason(LOG, errorReference({ reached: false, error: 'Error: internal error; reference = spvhl3sru4u9pptf23geu3hf' }))).toBe('connecting to 127.0.0.1:8081 is not allowed');
  });
});
