import type { Failure } from '../../api.js';
import type { Deps } from '../../flow-api.js';
import type { Strings } from '../../i18n/en.js';
import type { View } from '../../views/view.js';
import type { RunActions } from '../actions.js';
import { fieldOfIssue } from '../issues.js';
import { timeOfDay } from '../time-of-day.js';

/** Why a verification ended without an outcome, as the worker's issue says (a sentence before "… start again"). */
function closedWhy(t: Strings, f: Failure): string {
  const why = f.issues.find((i) => i.issueLocation === 'session')?.issue ?? '';
  return why.includes('code') ? `${t.errClosedTries} ` : why.includes('expired') ? `${t.errClosedTime} ` : '';
}

/** What to tell the person about a fault: never blame their connection for what is not. */
export function errorText(t: Strings, f: Failure, lang = 'en'): string {
  const byCode: Record<string, string> = {
    NETWORK_ERROR: t.errNetwork,
    RESULT_PENDING: t.errPending,
    NO_SESSION: t.noSession,
    VERIFICATION_ENDED: t.errSession,
    VERIFICATION_CLOSED: `${closedWhy(t, f)}${t.errClosed}`,
    // The page's client secret is not one the worker knows for this site: starting again here would not help.
    CLIENT_SECRET_INVALID: t.errSecretInvalid.replace('{site}', location.hostname),
    ORIGIN_NOT_ALLOWED: t.errSetup,
    SMS_NOT_ALLOWED: t.errSms,
  };
  const s = f.status;
  // How long, where the worker said (Retry-After: 15 minutes for the open-verification limit, a busy vendor's own
  // wait on a 503), as a time of day.
  const until = (text: string) => text.replace('{time}', timeOfDay(lang, f.retryAt!));
  return (
    byCode[f.errorCode] ??
    (s > 501
      ? f.retryAt // 502, 503, 504: the vendor or the worker's upstream
        ? until(t.errUnavailableUntil)
        : t.errUnavailable
      : s === 429
        ? f.retryAt
          ? until(t.errRateLimitedUntil)
          : t.errRateLimited
        : s === 401
          ? t.errSession
          : s === 403 || s === 500
            ? t.errSetup // origin not allowed, worker misconfigured
            : s === 400 && f.issues.some((i) => fieldOfIssue(i.issueLocation))
              ? t.fixFields
              : s === 400 && f.issues.length
                ? t.errSetup // e.g. a return-url on an origin that is not allowed: the site's to fix
                : t.errGeneric)
  );
}

/** The `error` state: what went wrong, and the action that can help (if any). Lit's `html` comes in `Deps`. */
export const alertView =
  ({ html, nothing }: Deps, a: RunActions): View =>
  ({ flow, t, tag }) => {
    const f = flow.failure!;
    const button = (label: string, onClick: () => void, secondary = false) =>
      html`<button type="button" class=${secondary ? 'secondary' : ''} part=${secondary ? 'button secondary' : 'button'} @click=${onClick}>${label}</button>`;
    const actions =
      f.errorCode === 'SMS_NOT_ALLOWED'
        ? [button(t.continueHere, a.continueHere)]
        : f.errorCode === 'NO_SESSION' || f.errorCode === 'CLIENT_SECRET_INVALID'
          ? []
          : [
              f.retryable && f.status !== 401 ? button(t.retry, flow.retry) : nothing,
              f.context === 'result' || f.status === 401 ? button(t.startAgain, a.startAgain, f.retryable && f.status !== 401) : nothing,
            ];
    return html`<div class="alert panel" part="alert" role="alert" tabindex="-1" id="alert">
    <p>${errorText(t, f, tag)}</p>
    ${actions.some((a) => a !== nothing) ? html`<div class="actions">${actions}</div>` : nothing}
  </div>`;
  };
