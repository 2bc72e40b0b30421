/**
 * Picking a verification up where it is: opened with a client secret, back
 * from the hosted flow (or Back, a reload), and the element put back into the
 * page.
 */
import { getResult } from '../api.js';
import type { RunContext } from './context.js';
import { requestLink } from './link.js';
import { complete, fail, redirect } from './outcome.js';
import { check, poll } from './poll.js';
import { pageUrl, takeReturn } from './return.js';
import { clientSecretOf } from './submit.js';

/**
 * Opened with a client secret (no return, no session in this tab): where is
 * that verification? Final: `complete` at once, with its token. Open: the
 * same hosted flow again. Created: the form. Canceled or expired: the
 * worker's 409 `VERIFICATION_CLOSED`.
 */
async function reopen(r: RunContext, clientSecret: string): Promise<void> {
  const signal = r.round();
  try {
    const answer = await getResult(r.host.endpoint, { clientSecret }, signal);
    if (signal.aborted) return;
    if (answer.status === 'final') {
      complete(r, answer);
      return;
    }
    if (answer.status !== 'open') return;
    await requestLink(r, { clientSecret, lang: r.flow.locale.code, returnUrl: r.host.returnUrl || pageUrl() }, true, signal);
  } catch (e) {
    if (!signal.aborted) fail(r, e, 'result');
  }
}

/** Back from the hosted flow with no result in the URL: offer "Continue the check" and "Change my details" at once. */
export function left(r: RunContext): void {
  const flow = r.flow;
  const stored = r.d.readStored();
  if (!stored) return void check(r);
  flow.link = { urlExpiry: stored.urlExpiry ?? '', ...(stored.url ? { url: stored.url } : {}) };
  flow.failure = undefined;
  r.set('checking');
  flow.leftFlow = true;
  r.host.requestUpdate();
  void flow.focus('#focus');
  // A check finished in another tab (or the hosted flow's own redirect lost) still reaches the outcome.
  void poll(r, stored.session, true);
}

/**
 * "Continue the check": where this device's hosted flow is now, asked of the
 * worker: the same link while it is good, a fresh one where the vendor's URL
 * works once (Stripe's is used up by the first visit), a new one once it
 * expired. Where Turnstile guards links and no token is at hand, the link
 * this tab kept.
 */
export async function continueCheck(r: RunContext): Promise<void> {
  const { flow, host } = r;
  const stored = r.d.readStored();
  const bot = flow.bot?.token;
  if (!stored || (host.turnstileSitekey && !bot)) {
    if (flow.link?.url) redirect(r, flow.link.url);
    return;
  }
  const signal = r.round();
  try {
    const body = { session: stored.session, lang: flow.locale.code, returnUrl: host.returnUrl || pageUrl() };
    await requestLink(r, bot ? { ...body, turnstileToken: bot } : body, false, signal);
  } catch (e) {
    if (!signal.aborted) fail(r, e, 'result');
  } finally {
    if (bot) flow.bot?.reset(); // Turnstile tokens are single-use
  }
}

/** After the first render (the prefill already in): a client secret, a return from the hosted flow, or a session this tab left behind. */
export function start(r: RunContext): void {
  const { flow, d } = r;
  const clientSecret = clientSecretOf(r);
  if (flow.state === 'idle' && clientSecret) return void reopen(r, clientSecret);
  if (flow.state !== 'checking') return; // the person moved on while the run was loading
  const stored = d.readStored();
  const back = takeReturn(stored?.returnKeys);
  if (back) {
    r.returnParams = back;
    if (stored) return void check(r);
    flow.notice = true;
    r.set('idle');
    void flow.focus('#focus');
  } else if (stored) {
    flow.link = { urlExpiry: stored.urlExpiry ?? '' };
    if (stored.handoff) {
      flow.link = { urlExpiry: stored.urlExpiry ?? '', url: stored.handoff.url };
      flow.qr = stored.handoff.qr;
      flow.claimCode = stored.code ?? '';
      r.set('handoff');
      void poll(r, stored.session, true);
    } else if (stored.phone) {
      flow.phone = stored.phone;
      flow.claimCode = stored.code ?? '';
      r.set('sms-sent');
      void poll(r, stored.session, true);
    } else left(r); // Back (or a reload) with no result in the URL
  } else r.set('idle');
}

/** The element is back in the page: go on asking where the run stopped. */
export function resume(r: RunContext): void {
  const stored = r.d.readStored();
  const s = r.flow.state;
  if (stored && (s === 'checking' || s === 'sms-sent' || s === 'handoff' || s === 'redirecting')) {
    r.set(s);
    // `checking` after a phone finished still waits as long as its link allows.
    void poll(r, stored.session, s !== 'checking' || !!(stored.handoff || stored.phone));
  }
}
