import { fillParts as fill } from '../../../rules/message.js';
import { timeOfDay } from '../time-of-day.js';
import type { Deps } from '../../flow-api.js';
import type { View } from '../../views/view.js';
import type { RunActions } from '../actions.js';

/**
 * `sms-sent`: the link is on the person's phone; until when it works, and the ways on. After "Send again", when and
 * where it went (the masked number, nothing more); offline, that it waits for the connection.
 */
export const smsSent =
  ({ html, nothing }: Deps, a: RunActions): View =>
  ({ flow, t, tag, lang }) => {
    const expiry = Date.parse(flow.link?.urlExpiry ?? '');
    const left = Math.max(0, Math.round((expiry - flow.now) / 1000));
    const expired = !Number.isNaN(expiry) && left <= 0;
    const time = Number.isNaN(expiry) ? '' : timeOfDay(tag, expiry);
    const mmss = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
    return html`<div class="panel" part="message">
    <p role="status" tabindex="-1" id="focus">${fill(t.smsSent, { phone: html`<bdi dir="ltr">${flow.phone}</bdi>` }, lang)}</p>
    ${
      flow.claimCode
        ? html`<p>${t.smsCode} <strong class="code" part="code"><bdi dir="ltr">${flow.claimCode.replace(/^(\d{3})/, '$1 ')}</bdi></strong></p>`
        : nothing
    }
    ${
      expired
        ? html`<p>${t.smsExpired} ${t.smsExpiredWhat}</p>`
        : time
          ? html`<p>${fill(t.smsExpires, { time }, lang)} <span aria-hidden="true">(${mmss})</span></p>`
          : nothing
    }
    ${
      flow.sentAt
        ? html`<p class="hint" role="status" tabindex="-1" id="sent">
          ${fill(t.sentAgain, { phone: html`<bdi dir="ltr">${flow.phone}</bdi>`, time: timeOfDay(tag, flow.sentAt) }, lang)}
        </p>`
        : nothing
    }
    ${navigator.onLine ? nothing : html`<p role="status">${t.offlineWait}</p>`}
    ${flow.resendWait ? html`<p class="error" role="alert" tabindex="-1" id="resend">${fill(t.sendAgainWait, { seconds: flow.resendWait }, lang)}</p>` : nothing}
    <div class="actions">
      <button type="button" part="button" @click=${a.sendAgain}>${t.sendAgain}</button>
      ${
        flow.host.clientSecret
          ? nothing
          : html`<button type="button" class="secondary" part="button secondary" @click=${a.changeNumber}>${t.changeNumber}</button>
            <button type="button" class="secondary" part="button secondary" @click=${a.useThisDevice}>${t.useThisDevice}</button>`
      }
    </div>
  </div>`;
  };
