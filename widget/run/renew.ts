/**
 * The QR code on screen always works: an expired handoff link is replaced by a new one of the same verification, and
 * so is one a phone already opened (single use: a re-scan after the phone's tab closed needs a new one), or one the
 * person asked to replace ("Show a new code").
 */
import type { RenewLinkRequest } from '../../worker/contract.js';
import { createLink, failure, isFailure, newKey, type LinkAnswer } from '../api.js';
import type { RunContext } from './context.js';
import { holdLink, safeUrl } from './hold-link.js';

/**
 * A new link for the same verification, from its session (the handoff's
 * link expired): the new session. Undefined when none can be had now: the
 * view then says the link has expired and offers starting again (polling
 * goes on: a phone already in the flow may finish), and the next poll tries
 * again. A spent session or an ended verification (401, 409) and faults a
 * retry may mend are thrown, as for a result.
 */
export async function renew(
  r: RunContext,
  session: string,
  signal: AbortSignal,
  why: 'expired' | 'used' | 'asked' = 'expired',
): Promise<string | undefined> {
  const { flow, host } = r;
  const expired = () => {
    // A code that still works stays on screen: only an expired one ends in "start again".
    if (why !== 'expired') throw failure('NO_NEW_CODE', 0, false);
    flow.linkExpired = true;
    host.requestUpdate();
    return undefined;
  };
  const bot = flow.bot?.token;
  // Where Turnstile is on, a new link needs a fresh token too.
  if (host.turnstileSitekey && !bot) {
    expired();
    return;
  }
  const body: RenewLinkRequest = { session, lang: flow.locale.code, ...(bot ? { turnstileToken: bot } : {}) };
  let answer: LinkAnswer;
  try {
    answer = await createLink(host.endpoint, body, newKey(), signal);
  } catch (e) {
    if (isFailure(e) && e.status >= 400 && e.status < 500 && ![401, 409, 429].includes(e.status)) {
      expired();
      return;
    }
    throw e;
  } finally {
    if (bot) flow.bot?.reset(); // Turnstile tokens are single-use
  }
  if (signal.aborted) return undefined;
  if (!answer.url || !answer.qr) throw failure('BAD_ANSWER', 200, false);
  const url = safeUrl(answer.url);
  flow.renewed = why === 'expired';
  flow.newCode = why === 'expired' ? undefined : why;
  flow.newCodeFault = undefined;
  flow.claimCode = answer.claimCode ?? flow.claimCode; // the same code: the verification keeps it
  holdLink(r, answer, url, { handoff: { url, qr: answer.qr }, ...(flow.claimCode ? { code: flow.claimCode } : {}) });
  // The phone that opened the last code may still be finishing: it is still said.
  if (why === 'used') flow.phoneOpened = true;
  host.requestUpdate();
  return answer.session;
}
