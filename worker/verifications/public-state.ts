/**
 * A verification's public state: what the partner's server reads from
 * `GET /v1/verifications/{id}` and what every webhook event's `data` carries,
 * so a receiver that keeps the event with the highest `sequence` holds the
 * same picture the read gives. Nothing personal and nothing secret: the
 * reference and the entity are added by each caller (and forgotten by a
 * redaction), the token and the client secret never appear here.
 */
import { checkStatusOf, lifecycle, type State } from './lifecycle';
import { vendorOf, type Verification } from './verification';
import type { VendorResult } from '../vendors/adapter';
import { resultOfStatus } from '../vendors/result';

export interface PublicState {
  status: State;
  /** Once a link was made: the deprecated check status, open or final (a redaction keeps it). */
  checkStatus?: string;
  /** Once final: the outcome in our words (`checkStatus` is the idv vendor's, kept for `idv` verifications). */
  result?: VendorResult;
  /** Attempts that ended, oldest first. */
  attempts?: { checkStatus: string; endedAt: string }[];
  createdAt: string;
  linkCreatedAt?: string;
  finalAt?: string;
  canceledAt?: string;
  redactedAt?: string;
  /** When it stops (its deadline). */
  expiresAt: string;
}

const iso = (t: number) => new Date(t).toISOString();

const resultField = (v: Verification): { result?: VendorResult } => {
  const result = resultOfStatus(checkStatusOf(v), vendorOf(v));
  return result ? { result } : {};
};

export function publicState(v: Verification): PublicState {
  const linked = v.linkCreatedAt !== undefined || v.entityId !== undefined;
  return {
    status: lifecycle(v),
    ...(linked ? { checkStatus: checkStatusOf(v) } : {}),
    ...(v.state.name === 'final' ? resultField(v) : {}),
    ...(v.attempts?.length ? { attempts: v.attempts.map((a) => ({ checkStatus: a.checkStatus, endedAt: iso(a.endedAt) })) } : {}),
    createdAt: iso(v.createdAt),
    ...(v.linkCreatedAt !== undefined ? { linkCreatedAt: iso(v.linkCreatedAt) } : {}),
    ...(v.state.name === 'final' ? { finalAt: iso(v.state.at) } : {}),
    ...(v.state.name === 'canceled' ? { canceledAt: iso(v.state.at) } : {}),
    ...(v.redactedAt !== undefined ? { redactedAt: iso(v.redactedAt) } : {}),
    expiresAt: iso(v.deadline),
  };
}
