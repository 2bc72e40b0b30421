/**
 * The settings a webhook (and a session) needs, checked as the configuration
 * guard checks the vendor's: a deployment with a malformed one refuses to
 * serve (`500 MISCONFIGURED` naming it) instead of running without the
 * outcomes it promises. Before, a `WEBHOOK_SECRET` without its `whsec_` form,
 * a `WEBHOOK_URL` typo or a missing `WEBHOOK_QUEUE` only skipped every
 * delivery with an info line, and a one-character `SESSION_SECRET` signed
 * every session.
 */
import { config } from '../config';
import { bindingIfAny, type Env } from '../lib/env';
import type { Issue } from '../lib/errors';
import { webhookUrlProblem } from '../../rules/webhook-url';
import { decodeWebhookSecret, localSandbox } from '../verifications/webhook-target';

/** Session HMACs under a shorter key are guessable offline: 256 bits, as HS256 wants. */
export const SESSION_SECRET_MIN_BYTES = 32;

/** What is wrong with the webhook and session settings (names, never values); empty when nothing. */
export function webhookSettingsProblems(env: Env, ownOrigin: string): Issue[] {
  const issues: Issue[] = [];
  const add = (issueLocation: string, issue: string) => issues.push({ issue, issueLocation });
  const cfg = config(env);
  const url = cfg.webhookUrl;
  const secret = cfg.secrets.webhookSecret;
  if (url) {
    const problem = webhookUrlProblem(url, localSandbox(env, ownOrigin));
    if (problem) add('WEBHOOK_URL', problem);
    if (!secret) add('WEBHOOK_SECRET', 'is not set (WEBHOOK_URL is)');
  }
  if (secret) {
    if (!decodeWebhookSecret(secret)) add('WEBHOOK_SECRET', 'must be whsec_ followed by the base64 of at least 16 bytes');
    if (!url) add('WEBHOOK_URL', 'is not set (WEBHOOK_SECRET is)');
  }
  if ((url || secret) && !bindingIfAny(env, 'WEBHOOK_QUEUE'))
    add('WEBHOOK_QUEUE', 'is not bound (webhooks are configured: nothing would ever be sent)');
  const session = cfg.secrets.sessionSecret;
  if (session && new TextEncoder().encode(session).length < SESSION_SECRET_MIN_BYTES)
    add('SESSION_SECRET', `must be at least ${SESSION_SECRET_MIN_BYTES} bytes`);
  return issues;
}
