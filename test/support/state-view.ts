/**
 * A record's explicit state read as the fields the record kept before it had
 * one (a check status and timestamps): what the older tests assert on.
 */
import { checkStatusOf, expiredReason, fromStored, stateAt } from '../../worker/verifications/lifecycle';
import type { StoredVerification, Verification } from '../../worker/verifications/verification';

export function flat(v: Verification) {
  return {
    status: checkStatusOf(v),
    finalAt: stateAt(v, 'final'),
    expiredAt: stateAt(v, 'expired'),
    expiredReason: expiredReason(v),
    canceledAt: stateAt(v, 'canceled'),
    requiresInputAt: v.state.name === 'requires_input' ? v.state.since : undefined,
  };
}

/** A record written as the code before the explicit state wrote it, read as storage reads it now. */
export const stored = (v: StoredVerification): Verification => fromStored(v);
