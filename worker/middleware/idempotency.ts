/**
 * Idempotency-Key as middleware: the claim / finish / release protocol of
 * lib/idempotency.ts in one place, for any POST route (`/api/onboarding-link`,
 * `POST /v1/verifications`). The route says when its request is idempotent:
 * after its own validation (a bad request answers the same with or without a
 * key), it calls `c.var.idempotency.claim(scopedKey, fingerprintSource)`,
 * which answers a replay (or throws 409 while the first request runs, or for
 * another body under the same key) and otherwise lets the route run. Once the
 * route has answered, the middleware keeps a success for replays, keeps a
 * failure whose outcome is unknown (the route said so: the vendor may have
 * acted, and a replay must not ask it again), and frees the key after any
 * other failure (remembering, when the route said so, that this request had
 * passed the bot check: a retry needs no second Turnstile token).
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';
import { fingerprint, type IdempotencyStoreApi, type StoredAnswer } from '../lib/idempotency';

export interface IdempotencyOptions {
  /** A stored answer as the route's replay (default: its body as JSON, with its status). */
  replay?: (c: Context<AppEnv>, answer: StoredAnswer) => Response | Promise<Response>;
  /** What of a success is kept for replays (default: the body as answered). */
  keep?: (res: Response) => Promise<StoredAnswer>;
}

const keepAsAnswered = async (res: Response): Promise<StoredAnswer> => ({ status: res.status, body: await res.text() });

/** Mount on the POST route that uses `c.var.idempotency`. */
export const idempotency = (options: IdempotencyOptions = {}) =>
  createMiddleware<AppEnv>(async (c, next) => {
    let claimed: { store: IdempotencyStoreApi; key: string; print: string } | undefined;
    // Set by the route through `c.var.idempotency` (an object: its fields change inside the route's calls).
    const said = { verified: false, botChecked: false, unknown: false };
    c.set('idempotency', {
      async claim(scopedKey, fingerprintSource) {
        const store = c.var.ports.idempotency(scopedKey);
        const print = await fingerprint(c.env, c.var.ports, fingerprintSource);
        const claim = await store.claim(scopedKey, print);
        if (claim.kind === 'replay') {
          c.header('Idempotent-Replayed', 'true');
          return options.replay
            ? options.replay(c, claim.answer)
            : c.body(claim.answer.body, claim.answer.status as 200, { 'Content-Type': 'application/json' });
        }
        if (claim.kind === 'busy') {
          throw new ApiError(409, 'IDEMPOTENCY_CONFLICT', 'This request is already being processed.', [], { 'Retry-After': '1' });
        }
        if (claim.kind === 'mismatch') {
          throw new ApiError(409, 'IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used for a different request.');
        }
        claimed = { store, key: scopedKey, print };
        said.verified = claim.verified === true;
        return undefined;
      },
      get verified() {
        return said.verified;
      },
      botChecked: () => void (said.botChecked = true),
      outcomeUnknown: () => void (said.unknown = true),
    });
    await next();
    if (!claimed) return;
    const { store, key, print } = claimed;
    const err = c.error;
    if (!err && c.res.status < 400) {
      await store.finish(key, print, await (options.keep ?? keepAsAnswered)(c.res.clone()));
    } else if (said.unknown && err instanceof ApiError) {
      await store.finish(key, print, {
        status: err.status,
        body: JSON.stringify({ errorCode: err.errorCode, errorMsg: err.errorMsg, issues: [], requestId: c.get('requestId') }),
      });
    } else {
      await store.release(key, print, said.botChecked);
    }
  });
