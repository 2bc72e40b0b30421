/**
 * Outcomes on demand, local stack only (`npm run sandbox -- complete|expire|requires-input`):
 *
 *   POST /sandbox/verifications/{verificationId}/complete   {"outcome": "verified|failed|inconclusive|requires_input|abandoned", "code"?: "…"}
 *   POST /sandbox/verifications/{verificationId}/expire
 *
 * `complete` sets the outcome, in our words, on the double of the
 * verification's own vendor, which says it in its own (the idv sandbox: a
 * check status, `STATUS_OF_OUTCOME`; the Stripe double: Verify, Fail with a
 * `last_error.code` (`code`, else a typical one) or Abandon, `choiceFor`), as
 * if the person had finished the hosted flow, then has the worker ask the vendor
 * at once, as for a person back from it: the verification ends through its
 * ordinary path (record, webhook, operator events). `expire` ends an open one
 * as expired now. Mounted behind the sandbox's guard (it exists only while the
 * sandbox is the vendor), and answers requests from this machine only (by the
 * connection's address, `fromThisMachine`, not the Host header): on a deployed
 * sales demo, or a stack listening on a LAN, nobody may end another visitor's
 * verification. `{"status": "<idv check status>"}` is still taken for an idv
 * verification (deprecated: the vendor's word).
 */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import { storeFor } from '../../sandbox/store';
import { FINAL_CHECK_STATUSES, forceStatus, STATUS_OF_OUTCOME } from '../../sandbox/outcome';
import { choiceFor, settled } from '../../sandbox/stripe/app';
import { ApiError, validationError } from '../lib/errors';
import type { AppEnv } from '../app-env';
import { fromThisMachine } from '../lib/local-client';
import { readJson } from '../lib/validation';
import { VERIFICATION_ID, vendorOf, type Verification } from '../verifications/verification';
import { resultOfStatus } from '../vendors/result';
import { checkStatusOf, hasLink, isOpen, lifecycle } from '../verifications/lifecycle';
import type { Verifications } from '../ports';

/** The outcomes the command may ask for, in our words (each vendor's double has some of them). */
export const SANDBOX_OUTCOMES = ['verified', 'failed', 'inconclusive', 'requires_input', 'abandoned'] as const;

const CompleteRequest = z.object({
  outcome: z.optional(z.enum(SANDBOX_OUTCOMES)),
  /** Stripe only: the `last_error.code` of a failed or requires_input outcome. */
  code: z.optional(z.string().check(z.maxLength(64, 'is too long'))),
  /** Deprecated, idv only: its final check status. */
  status: z.optional(z.enum(FINAL_CHECK_STATUSES)),
});
type Complete = z.output<typeof CompleteRequest>;

const refused = (issueLocation: string, issue: string) => validationError([{ issue, issueLocation }]);

const notFound = () =>
  new ApiError(404, 'NOT_FOUND', 'No such verification.', [{ issue: 'no such verification', issueLocation: 'verificationId' }]);

/** The open verification the path names; else 404, or 409 once it has ended. */
async function openVerification(store: Verifications, id: string): Promise<Verification> {
  if (!VERIFICATION_ID.test(id)) throw notFound();
  const v = await store.execute(id, { type: 'read' });
  if (!v) throw notFound();
  if (!isOpen(v))
    throw new ApiError(409, 'VERIFICATION_ENDED', `The verification has already ended (${lifecycle(v)}).`, [
      { issue: 'has ended', issueLocation: 'verificationId' },
    ]);
  return v;
}

/** What the command prints: where the verification stands now (no personal data). */
const view = (v: Verification) => ({
  verificationId: v.id,
  status: lifecycle(v),
  ...(v.vendor ? { vendor: v.vendor } : {}),
  ...(v.state.name === 'final' ? { result: resultOfStatus(v.state.checkStatus, vendorOf(v)) } : {}),
  checkStatus: checkStatusOf(v),
  ...(v.state.name === 'expired' ? { reason: v.state.reason } : {}),
  ...(v.handoff?.code !== undefined && !v.handoff.claimed && v.handoff.pendingStatus
    ? { waitingFor: 'the code shown on the first device (a handed-off link is credited once it is entered)' }
    : {}),
});

export const sandboxOutcomes = new Hono<AppEnv>().basePath('/sandbox/verifications');

sandboxOutcomes.use('*', async (c, next) => {
  // From this machine by the connection's address, not the Host header (lib/local-client.ts).
  if (!fromThisMachine(c.var.config, c.req.url, c.req.raw.headers)) throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
  await next();
});

sandboxOutcomes.post('/:id/complete', async (c) => {
  const { data } = await readJson(c, CompleteRequest);
  const v = await openVerification(c.var.ports.verifications, c.req.param('id'));
  if (!hasLink(v))
    throw new ApiError(409, 'NOT_FINAL', 'The verification has no vendor check yet: its page has not used the client secret.', [
      { issue: 'has no link yet', issueLocation: 'verificationId' },
    ]);
  if (data.outcome === undefined && data.status === undefined)
    throw refused('outcome', `is required: one of ${SANDBOX_OUTCOMES.join(', ')}`);
  if (data.outcome !== undefined && data.status !== undefined) throw refused('status', 'cannot be combined with outcome: give one');
  const found = vendorOf(v) === 'stripe' ? await completeAtStripe(c.env, v, data) : await completeAtIdv(c.env, v, data);
  if (!found) throw notFound();
  const after = (await c.var.ports.verifications.execute(v.id, { type: 'observe', arrived: true })) ?? v;
  return c.json(view(after));
});

/** The idv sandbox's check of the verification, ended with the outcome's status (or the status given); false: none. */
async function completeAtIdv(env: AppEnv['Bindings'], v: Verification & { entityId: string }, data: Complete): Promise<boolean> {
  if (data.code !== undefined) throw refused('code', 'is for a stripe verification (a last_error.code)');
  let status: string;
  if (data.outcome !== undefined) {
    if (data.outcome === 'abandoned') throw refused('outcome', 'abandoned is not an ending the idv sandbox has (its check stays open)');
    status = STATUS_OF_OUTCOME[data.outcome];
  } else status = data.status!;
  // The sandbox finds the check by what its hosted flow appended to the return URL (a browser brought them), else the entity's newest.
  const ref = { ...v.returnParams, entityId: v.entityId };
  return (await forceStatus(storeFor(env), ref, status, Date.now())) !== null;
}

/** The Stripe double's session of the verification, settled as the person's choice would; false: none. */
async function completeAtStripe(env: AppEnv['Bindings'], v: Verification & { entityId: string }, data: Complete): Promise<boolean> {
  if (data.status !== undefined) throw refused('status', 'is the idv sandbox’s word: give outcome for a stripe verification');
  const choice = choiceFor(data.outcome!, data.code);
  if (!choice) {
    throw data.code !== undefined
      ? refused('code', `must be a Stripe last_error.code, with failed or requires_input only`)
      : refused('outcome', `${data.outcome} is not an ending Stripe has`);
  }
  const store = storeFor(env);
  const session = await store.getStripeSession(v.entityId);
  if (!session) return false;
  await store.putStripeSession(settled(session, choice));
  return true;
}

sandboxOutcomes.post('/:id/expire', async (c) => {
  const v = await openVerification(c.var.ports.verifications, c.req.param('id'));
  const after = (await c.var.ports.verifications.execute(v.id, { type: 'expire' })) ?? v;
  return c.json(view(after));
});
