/**
 * How a round ends: a fault (`error`), the outcome (`complete`), the next
 * attempt (`requires_input`: the form again), or the way to the hosted flow
 * (`redirecting`).
 */
import type { ResultAnswer } from '../../worker/contract.js';
import { failure, isFailure } from '../api.js';
import type { RunContext } from './context.js';
import { fieldOfIssue } from './issues.js';
import { dropForm, takeForm } from './kept-form.js';

/** A fault: `error`, `kyc-error`, the worker's field issues on their fields, and a word to the developer where it is theirs to fix. */
export function fail(r: RunContext, e: unknown, context: 'submit' | 'result'): void {
  const { flow, host, d } = r;
  r.stop();
  const f = isFailure(e) ? e : failure('UNKNOWN', 0, false);
  flow.failure = { ...f, context };
  // The verification has ended (or the session is gone): the values kept for it can never be opened.
  if (context === 'result' && (f.status === 401 || f.status === 409)) dropForm();
  const unplaced: string[] = [];
  if (context === 'submit' && f.errorCode !== 'SMS_NOT_ALLOWED') {
    for (const issue of f.issues) {
      const hit = fieldOfIssue(issue.issueLocation, issue.issue);
      if (hit) flow.serverErrors[hit[0]] = hit[1];
      // The worker knew a minimum age this page had not heard of: say it as the worker did.
      if (hit?.[1] === 'errTooYoung') flow.settings = { ...flow.settings, minAge: Number(/\d+/.exec(issue.issue)?.[0]) };
      else unplaced.push(`${issue.issueLocation} ${issue.issue}`);
    }
  }
  if (f.errorCode === 'ORIGIN_NOT_ALLOWED') {
    console.error(
      `<kyc-onboard>: the worker refused this page's origin (${location.origin}): add it to the worker's ALLOWED_ORIGINS (or to the partner's origins). Request ${f.requestId}.`,
    );
  }
  if (f.errorCode === 'CLIENT_SECRET_INVALID') {
    console.error(
      `<kyc-onboard>: the worker refused client-secret: it is not the clientSecret your server got from POST /v1/verifications for this site's partner (another partner's or environment's, altered or cut short, or this page's origin is not the partner's). Pass the clientSecret of the verification, as it is. Request ${f.requestId}.`,
    );
  }
  if (unplaced.length) console.error(`<kyc-onboard>: the worker refused the request: ${unplaced.join('; ')}. Request ${f.requestId}.`);
  r.set('error');
  d.emit(host, 'kyc-error', { errorCode: f.errorCode, requestId: f.requestId, retryable: f.retryable, status: f.status });
  if (context === 'submit') void flow.focusFirstInvalid();
}

/** To the hosted flow, unless the page vetoes `kyc-redirect`. */
export function redirect(r: RunContext, url: string): void {
  r.set('redirecting');
  if (!r.d.emit(r.host, 'kyc-redirect', { url }).defaultPrevented) r.host.navigate(url);
}

/** A final check status: `complete` and `kyc-complete`; the session is forgotten. */
export function complete(r: RunContext, answer: ResultAnswer): void {
  const { flow, host, d } = r;
  d.writeStored();
  dropForm();
  r.stop();
  flow.checkStatus = answer.checkStatus;
  // Decided from the outcome in our words, never from a vendor's word.
  flow.outcome = answer.result?.outcome ?? '';
  r.set('complete');
  d.emit(host, 'kyc-complete', {
    checkStatus: answer.checkStatus,
    verificationId: answer.verificationId,
    resultToken: answer.resultToken!,
    ...(answer.result ? { result: answer.result } : {}),
    ...(answer.vendor ? { vendor: answer.vendor } : {}),
    mayStartAnother: answer.result?.outcome !== 'verified',
  });
  // The outcome is new content: focus its heading, so it is read out wherever focus was.
  void flow.focus('#focus');
}

/**
 * The attempt ended `requires_input` (no match: maybe a typo): the form as it was, with what to check above it;
 * sending it is the next attempt of the same verification (its session goes with it).
 */
export function requiresInput(r: RunContext, session: string): void {
  const flow = r.flow;
  r.d.writeStored();
  r.stop();
  flow.attempt = session;
  flow.failure = undefined;
  // The same verification for the same purpose: the consent given for it stays given (the box stays ticked).
  flow.values.consent = true;
  r.set('idle');
  void flow.focus('#focus');
  void refill(r, r.formKey);
}

/**
 * Back on the page after the hosted flow (loaded afresh): the values this tab kept, opened with the worker's key,
 * go into the fields the person has not typed in since. Without them (no key, nothing kept, a garbled copy) the
 * form stays as it is.
 */
export async function refill(r: RunContext, formKey: string | undefined): Promise<void> {
  const kept = await takeForm(formKey);
  const flow = r.flow;
  if (!kept || !flow.showsForm()) return;
  for (const [k, x] of Object.entries(kept)) if (x && !flow.typed.has(k)) flow.values[k as keyof typeof kept] = x;
  r.host.requestUpdate();
}

/** The form again, with every value as the person left it; the session is forgotten. */
export function backToForm(r: RunContext): void {
  r.d.writeStored();
  r.stop();
  r.flow.failure = undefined;
  r.set('idle');
}
