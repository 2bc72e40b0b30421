/** The person's submission (also "Send again" of a texted link and the next attempt): the request for a link. */
import type { OnboardingLinkRequest, RenewLinkRequest } from '../../worker/contract.js';
import { isFailure } from '../api.js';
import type { RunContext } from './context.js';
import { requestLink } from './link.js';
import { dropForm, keepForm } from './kept-form.js';
import { fail } from './outcome.js';
import { poll } from './poll.js';
import { pageUrl } from './return.js';
import { toRequest } from './validate.js';

/** With `client-secret`: a verification the partner's server started. The page's `customer-ref` does not apply. */
export function clientSecretOf(r: RunContext): string | undefined {
  const host = r.host;
  if (host.clientSecret && host.customerRef && !r.warnedRef) {
    r.warnedRef = true;
    console.warn(
      "<kyc-onboard>: customer-ref is ignored when client-secret is set: the verification's customerRef is the one your server gave it.",
    );
  }
  return host.clientSecret || undefined;
}

/**
 * Ask for a link with what the person typed (checked already), then go to the hosted flow, or wait for the phone
 * (QR code, copied link, texted link). A refused "Send again" keeps the text already out.
 */
export async function submit(r: RunContext, sendSMS: boolean, handoff = false): Promise<void> {
  const { flow, host, d } = r;
  const lang = flow.locale.code;
  const again = flow.resending;
  flow.resending = false;
  flow.resendWait = 0;
  flow.sentAt = undefined;
  const signal = r.round(); // also stops the polling of an earlier link ("Send again")
  r.returnParams = {}; // a new link: an earlier return's parameters no longer apply
  r.formKey = undefined; // and an earlier link's form key
  const full: OnboardingLinkRequest = { ...toRequest(flow.values), returnUrl: host.returnUrl || pageUrl() };
  if (sendSMS) full.sendSMS = true;
  else if (handoff) full.handoff = true;
  // The phone's pages (a handoff, a texted link) speak the widget's language.
  if (sendSMS || handoff) full.lang = lang;
  const clientSecret = clientSecretOf(r);
  if (clientSecret) full.clientSecret = clientSecret;
  else if (flow.attempt)
    full.session = flow.attempt; // the next attempt, with the corrected details
  else if (host.customerRef) full.customerRef = host.customerRef;
  // "Send again": a new text of the same verification (its session and the number), never a new code.
  const texted = again ? d.readStored() : undefined;
  // To the hosted flow in this tab: the page loads afresh on the way back, so the values are kept here, encrypted,
  // with the key at the worker (kept-form.ts). Any other way keeps the page: nothing to keep.
  if (!sendSMS && !handoff && !texted) {
    const formKey = await keepForm(flow.values);
    if (signal.aborted) return;
    if (formKey) full.formKey = formKey;
  } else if (!texted) dropForm();
  const body: OnboardingLinkRequest | RenewLinkRequest = texted?.phone
    ? { session: texted.session, sendSMS: true, phone: full.phone, lang }
    : full;
  const bot = flow.bot?.token;
  if (bot) body.turnstileToken = bot;
  try {
    await requestLink(r, body, handoff, signal);
    flow.attempt = undefined;
    // "Send again" worked: the screen says when and to which (masked) number, and focus goes to that line.
    if (again && flow.state === 'sms-sent') {
      flow.sentAt = Date.now();
      host.requestUpdate();
      void flow.focus('#sent');
    }
  } catch (e) {
    if (signal.aborted) return;
    const stored = again && isFailure(e) ? d.readStored() : undefined;
    if (stored?.phone && isFailure(e)) {
      // "Send again" refused (too many texts) or failed: the text already
      // out still works, so say when to try again and keep waiting for it.
      flow.resendWait = e.retryAfter ?? 60;
      r.set('sms-sent');
      d.emit(host, 'kyc-error', { errorCode: e.errorCode, requestId: e.requestId, retryable: e.retryable, status: e.status });
      void poll(r, stored.session, true);
      void flow.focus('#resend');
      return;
    }
    fail(r, e, 'submit');
  } finally {
    if (bot) flow.bot?.reset(); // Turnstile tokens are single-use
  }
}
