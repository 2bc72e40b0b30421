/** Asking for a link, and where it sends the person: the hosted flow in this tab, a QR code, or a texted link. */
import type { OnboardingLinkRequest, RenewLinkRequest, ResumeLinkRequest } from '../../worker/contract.js';
import { createLink, isFailure, newKey, type LinkAnswer } from '../api.js';
import { sleep, type RunContext } from './context.js';
import { holdLink, safeUrl } from './hold-link.js';
import { redirect } from './outcome.js';
import { poll } from './poll.js';

/** `+61 ••• ••• 678`: enough to recognise one's own number. */
export const maskPhone = (code: string, number: string): string =>
  number.startsWith('+') ? `••• ${number.slice(-3)}` : `${code} ••• ${number.slice(-3)}`;

/**
 * Ask for a link (with one automatic retry after a network fault or a
 * 502/503/504), then go to the hosted flow, or wait for the phone.
 * `handoff` says a QR code was asked for; a resume (`phone` unknown) goes the way its first link went.
 */
export async function requestLink(
  r: RunContext,
  body: OnboardingLinkRequest | RenewLinkRequest | ResumeLinkRequest,
  handoff: boolean,
  signal: AbortSignal,
): Promise<void> {
  const { flow, host } = r;
  const key = newKey(); // one per submission; reused by the automatic retry below
  let answer: LinkAnswer;
  try {
    answer = await createLink(host.endpoint, body, key, signal);
  } catch (e) {
    // Not before a Retry-After (a busy vendor's 503): the person is told until when instead.
    if (!isFailure(e) || !(e.status === 0 || e.status >= 502) || e.retryAfter) throw e;
    await sleep(host.retryDelay, signal);
    if (signal.aborted) return;
    answer = await createLink(host.endpoint, body, key, signal);
  }
  if (signal.aborted) return;
  // A texted link comes with a code and no URL: this tab never holds the hosted flow's address.
  const url = answer.url ? safeUrl(answer.url) : '';
  flow.phone = 'phone' in body && body.phone ? maskPhone(body.phone.code, body.phone.number) : '';
  flow.claimCode = answer.claimCode ?? '';
  flow.renewed = false;
  flow.newCode = flow.newCodeFault = undefined;
  r.keepUsedCode = false;
  // What a reload or Back needs to go on: the texted number and code, or the phone's link and QR code.
  const handedOff = !answer.smsSent && answer.qr && handoff ? answer.qr : undefined;
  holdLink(r, answer, url, {
    ...(answer.smsSent ? { phone: flow.phone, ...(flow.claimCode ? { code: flow.claimCode } : {}) } : {}),
    ...(handedOff ? { handoff: { url, qr: handedOff }, ...(flow.claimCode ? { code: flow.claimCode } : {}) } : {}),
    ...(!answer.smsSent && !handedOff && url ? { url } : {}),
  });
  // While the link is out (a text message; the hosted flow in this tab, a popup or another tab), this tab
  // keeps asking, so it reaches the outcome wherever the person finishes.
  void poll(r, answer.session, true);
  if (answer.smsSent) {
    r.set('sms-sent');
    void flow.focus('#focus');
  } else if (handedOff) {
    // The URL is the worker's single-use handoff link, for the phone: this tab waits.
    r.set('handoff');
    void flow.focus('#focus');
  } else redirect(r, url);
}
