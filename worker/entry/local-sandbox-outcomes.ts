/**
 * Outcomes on demand, local stack only (`npm run sandbox -- complete|expire|requires-input`):
 *
 *   POST /sandbox/verifications/{verificationId}/complete   {"status": "<final check status>"}
 *   POST /sandbox/verifications/{verificationId}/expire
 *
 * `complete` sets the sandbox's outcome for the verification's check, as if
 * the person had finished the hosted flow, then has the worker ask the vendor
 * at once, as for a person back from it: the verification ends through its
 * ordinary path (record, webhook, operator events). `expire` ends an open one
 * as expired now. Mounted behind the sandbox's guard (it exists only while the
 * sandbox is the vendor), and answers requests from this machine only (by the
 * connection's address, `fromThisMachine`, not the Host header): on a deployed
 * sales demo, or a stack listening on a LAN, nobody may end another visitor's
 * verification.
 */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import { storeFor } from '../../sandbox/store';
import { FINAL_CHECK_STATUSES, forceStatus } from '../../sandbox/outcome';
import { ApiError } from '../lib/errors';
import type { AppEnv } from '../app-env';
import { fromThisMachine } from '../lib/local-client';
import { readJson } from '../lib/validation';
import { VERIFICATION_ID, type Verification } from '../verifications/verification';
import { checkStatusOf, hasLink, isOpen, lifecycle } from '../verifications/lifecycle';
import type { Verifications } from '../ports';

const CompleteRequest = z.object({ status: z.enum(FINAL_CHECK_STATUSES) });

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
  const ref = { entityId: v.entityId, ...(v.checkId ? { checkId: v.checkId } : {}), ...(v.token ? { token: v.token } : {}) };
  const check = await forceStatus(storeFor(c.env), ref, data.status, Date.now());
  if (!check) throw notFound();
  const after = (await c.var.ports.verifications.execute(v.id, { type: 'observe', arrived: true })) ?? v;
  return c.json(view(after));
});

sandboxOutcomes.post('/:id/expire', async (c) => {
  const v = await openVerification(c.var.ports.verifications, c.req.param('id'));
  const after = (await c.var.ports.verifications.execute(v.id, { type: 'expire' })) ?? v;
  return c.json(view(after));
});
