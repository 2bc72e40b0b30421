/**
 * Views of the states only the run reaches. Lit's `html` comes in `Deps`
 * (see `Flow.load()`): importing lit here would split it out of the entry.
 */
import type { Deps } from '../flow.js';
import type { KycState } from '../state.js';
import type { View } from '../views/view.js';

/** Fill `{name}` placeholders with text or templates (so numbers can be isolated with `<bdi>`). */
const fill = (s: string, vars: Record<string, unknown>): unknown[] =>
  s.split(/(\{\w+\})/).map((part) => (/^\{\w+\}$/.test(part) ? vars[part.slice(1, -1)] : part));

export function runViews({ html, nothing }: Deps): Partial<Record<KycState | 'notice', View>> {
  return {
    /** On the way to the hosted flow, with a link in case the browser does not go. */
    redirecting: ({ flow, t }) =>
      html`<div class="panel" part="message">
        <p role="status">${t.redirecting}</p>
        ${flow.link?.url ? html`<p><a part="link" href=${flow.link.url}>${t.continueLink}</a></p>` : nothing}
      </div>`,

    /** The link is on the person's phone: until when it works, and the ways on. */
    'sms-sent': ({ flow, t, tag }) => {
      const expiry = Date.parse(flow.link?.urlExpiry ?? '');
      const left = Math.max(0, Math.round((expiry - flow.now) / 1000));
      const expired = !Number.isNaN(expiry) && left <= 0;
      const time = Number.isNaN(expiry) ? '' : new Intl.DateTimeFormat(tag, { timeStyle: 'short' }).format(expiry);
      const mmss = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
      return html`<div class="panel" part="message">
        <p role="status" tabindex="-1" id="focus">${fill(t.smsSent, { phone: html`<bdi dir="ltr">${flow.phone}</bdi>` })}</p>
        ${expired
          ? html`<p>${t.smsExpired}</p>`
          : time
            ? html`<p>${fill(t.smsExpires, { time })} <span aria-hidden="true">(${mmss})</span></p>`
            : nothing}
        <div class="actions">
          <button type="button" part="button" @click=${flow.sendAgain}>${t.sendAgain}</button>
          ${expired || !flow.link?.url
            ? nothing
            : html`<button type="button" class="secondary" part="button secondary" @click=${flow.useThisDevice}>${t.useThisDevice}</button>`}
        </div>
      </div>`;
    },

    /**
     * A final check status, as a heading that gets focus (a live region that
     * was on the page before may stay silent after a return). Only a clear
     * success carries the success accent; any other outcome is neutral (never
     * "you failed": the partner says what comes next).
     */
    complete: ({ flow, t }) => {
      const ok = flow.checkStatus.startsWith('CHECKED_SUCCESS');
      return html`<div class="panel outcome ${ok ? 'ok' : ''}" part="message complete">
        <h2 tabindex="-1" id="focus">${ok ? t.completeSuccess : t.completeOther}</h2>
      </div>`;
    },

    /** Back from the hosted flow in a tab without the session (a new tab, another browser): finish where you started. */
    notice: ({ t }) =>
      html`<div class="panel" part="message">
        <h2 tabindex="-1" id="focus">${t.noSession}</h2>
      </div>`,
  };
}
