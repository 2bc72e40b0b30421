import type { Deps, FlowApi as Flow } from '../../flow-api.js';
import type { View } from '../../views/view.js';
import type { Strings } from '../../i18n/en.js';
import type { RunActions } from '../actions.js';
import { errorText } from './alert.js';

/**
 * The QR code's dark modules as one SVG path (a quiet zone of four modules
 * around): built from the worker's data, so no encoder ships with the widget
 * and nothing here is markup a strict CSP could refuse.
 */
export function qrPath(qr: { size: number; modules: string }): string {
  const bytes = atob(qr.modules);
  let d = '';
  for (let i = 0; i < qr.size * qr.size; i++) {
    if ((bytes.charCodeAt(i >> 3) >> (7 - (i & 7))) & 1) d += `M${(i % qr.size) + 4} ${Math.floor(i / qr.size) + 4}h1v1h-1z`;
  }
  return d;
}

/** Copies the handoff link; where the clipboard is refused, selects it for the person to copy. */
async function copy(flow: Flow, input: HTMLInputElement | null): Promise<void> {
  try {
    await navigator.clipboard.writeText(flow.link?.url ?? '');
    flow.copied = true;
  } catch {
    input?.select();
  }
  flow.host.requestUpdate();
}

/** The status line under the link: copied, or why the code on screen is a new one (or why none came). */
const hint = (flow: Flow, t: Strings, tag: string): string =>
  flow.copied
    ? t.copied
    : flow.newCodeFault
      ? errorText(t, flow.newCodeFault, tag)
      : flow.newCode === 'used'
        ? t.handoffUsed
        : flow.newCode === 'asked'
          ? t.handoffNew
          : flow.renewed
            ? t.handoffRenewed
            : '';

/**
 * `handoff`, "Continue on my phone": the worker's single-use link as a QR code
 * and as text with "Copy link", and beside them the code the phone's last
 * page asks for (so a forwarded link credits nobody). This tab keeps polling
 * and reaches the outcome by itself. "Show a new code" replaces the code on
 * screen (the poll does so by itself once the phone opened it).
 */
export const handoff =
  ({ html, nothing }: Deps, a: RunActions): View =>
  ({ flow, t, tag }) => {
    if (flow.linkExpired) {
      return html`<div class="panel" part="message">
      <p role="status" tabindex="-1" id="focus">${t.smsExpired} ${t.handoffNoNew}</p>
      <div class="actions"><button type="button" part="button" @click=${a.startAgain}>${t.startAgain}</button></div>
    </div>`;
    }
    const qr = flow.qr;
    const box = qr ? qr.size + 8 : 0;
    return html`<div class="panel" part="message">
    <p role="status" tabindex="-1" id="focus">${t.handoffScan}</p>
    ${
      qr
        ? html`<svg class="qr" part="qr" role="img" aria-label=${t.handoffQr} viewBox="0 0 ${box} ${box}" shape-rendering="crispEdges">
          <rect width=${box} height=${box} fill="#fff"></rect>
          <path d=${qrPath(qr)} fill="#000"></path>
        </svg>`
        : nothing
    }
    ${
      flow.claimCode
        ? html`<p>${t.handoffCode} <strong class="code" part="code"><bdi dir="ltr">${flow.claimCode.replace(/^(\d{3})/, '$1 ')}</bdi></strong></p>`
        : nothing
    }
    <label for="handoff-link">${t.handoffLink}</label>
    <div class="row copy">
      <input id="handoff-link" part="input" readonly .value=${flow.link?.url ?? ''} @focus=${(e: Event) => (e.target as HTMLInputElement).select()} />
      <button type="button" part="button secondary" class="secondary" @click=${(e: Event) => copy(flow, (e.target as HTMLElement).parentElement!.querySelector('input'))}>
        ${t.copyLink}
      </button>
    </div>
    <p class="hint" role="status">${hint(flow, t, tag)}</p>
    <p role="status">${navigator.onLine ? (flow.phoneOpened ? t.phoneOpened : t.handoffWait) : t.offlineWait}</p>
    <div class="actions">
      <button type="button" class="secondary" part="button secondary" @click=${a.showNewCode}>${t.showNewCode}</button>
      ${
        flow.host.clientSecret
          ? nothing
          : html`<button type="button" class="secondary" part="button secondary" @click=${a.useThisDevice}>${t.useThisDevice}</button>`
      }
    </div>
  </div>`;
  };
