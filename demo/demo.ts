/**
 * The sales demo's own code: the console beside the fictional partner page.
 * It only does what a partner could do from outside the widget: set its
 * attributes and CSS custom properties, and listen for its events. The widget
 * itself is loaded by `<script type="module" src="/widget.js">`, as on any
 * partner page. This module runs first (it comes first in the document), so its
 * listeners are in place before the widget upgrades.
 *
 * Settings, the event log and the visitor's reference live in web storage, so
 * they survive the trip to the hosted flow and back.
 */
import type {} from '../widget/index.js';
import { DEMO_PARTNERS, demoPartnerForHost } from '../worker/demo/partners';
import type { DemoDelivery } from '../worker/demo/delivery';
import { fromBase64url } from '../rules/base64url';
import { LANGUAGES, RTL_LANGUAGES } from '../rules/language';

type Theme = 'light' | 'dark' | 'brand';
interface Settings {
  theme: Theme;
  brand: string;
  lang: string;
  sms: boolean;
  /** "Start from the server": the partner's server starts the verification and hands the page a client secret. */
  serverFirst: boolean;
}
interface LogEntry {
  at: string;
  kind: 'event' | 'note';
  name: string;
  detail?: unknown;
}
/** The sandbox outbox's message, the fields the console shows (the worker never sends a typed name to be texted). */
interface OutboxMessage {
  to: string;
  senderName?: string;
  text: string;
  link?: string;
  createdAt: string;
}

const EVENTS = ['kyc-submit', 'kyc-link', 'kyc-redirect', 'kyc-complete', 'kyc-error'] as const;
/** Every language the widget speaks (rules/language.ts): the first 24 are the EU's official languages. */
const LANGS: readonly string[] = LANGUAGES;

/** The language menu: each language in its own words (and in English), the EU's official ones first. */
function languageOptions(select: HTMLSelectElement): void {
  const english = new Intl.DisplayNames(['en'], { type: 'language' });
  const group = (label: string, codes: readonly string[]) => {
    const g = document.createElement('optgroup');
    g.label = label;
    for (const code of codes) {
      const own = new Intl.DisplayNames([code], { type: 'language' }).of(code) ?? code;
      const name = english.of(code) ?? code;
      const o = new Option(
        `${own}${own === name ? '' : ` (${name})`}${(RTL_LANGUAGES as readonly string[]).includes(code) ? ', right to left' : ''}`,
        code,
      );
      o.lang = code;
      g.append(o);
    }
    select.append(g);
  };
  select.replaceChildren();
  group('EU official languages', LANGS.slice(0, 24));
  group('More languages', LANGS.slice(24));
}
const SETTINGS_KEY = 'kyc-demo:settings';
const LOG_KEY = 'kyc-demo:log';
const REF_KEY = 'kyc-demo:outbox-key';
const WIDGET_SESSION_KEY = 'kyc-onboard:session';
/** The client secret the demo's "server" handed this tab (server first): a reload or a return resumes it. */
const SECRET_KEY = 'kyc-demo:client-secret';
const MAX_LOG = 60;
/** The outbox is polled often while a text may be on its way, rarely otherwise (keeps `npm start`'s log readable). */
const OUTBOX_POLL_FAST_MS = 2500;
const OUTBOX_POLL_SLOW_MS = 30_000;
const OUTBOX_FAST_FOR_MS = 2 * 60_000;
/** First visit: the visitor's own light/dark preference, English, SMS offered. */
const DEFAULTS: Settings = {
  theme: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
  brand: '#5b3cc4',
  lang: 'en',
  sms: true,
  serverFirst: false,
};

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

type StoreName = 'localStorage' | 'sessionStorage';

function read<T>(store: StoreName, key: string, fallback: T): T {
  try {
    const raw = window[store].getItem(key);
    return raw ? { ...fallback, ...(JSON.parse(raw) as T) } : fallback;
  } catch {
    return fallback;
  }
}
function readList<T>(store: StoreName, key: string): T[] {
  try {
    const v = JSON.parse(window[store].getItem(key) || '[]') as unknown;
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
}
function write(store: StoreName, key: string, value: unknown): void {
  try {
    window[store].setItem(key, JSON.stringify(value));
  } catch {
    /* storage blocked: the demo still works, it just forgets */
  }
}

/**
 * This visitor's outbox key: random, kept in this browser only (where storage
 * is blocked, in this page only: never a shared fallback). The sandbox shows
 * texted links only to the holder of the key; the widget's `customer-ref` is
 * the key's SHA-256 (sandbox/outbox.ts), so knowing the reference reads nothing.
 */
function outboxKey(): string {
  const fresh = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  try {
    let key = localStorage.getItem(REF_KEY);
    if (!key || !/^[A-Za-z0-9_-]{16,128}$/.test(key)) {
      key = fresh();
      localStorage.setItem(REF_KEY, key);
    }
    return key;
  } catch {
    return fresh();
  }
}

const outbox = outboxKey();
/** The widget's `customer-ref`: set once the key's hash is known (as sandbox/outbox.ts derives it). */
let ref = '';
const refReady = crypto.subtle.digest('SHA-256', new TextEncoder().encode(`kyc-sandbox-outbox ${outbox}`)).then((d) => {
  ref = 'demo-' + Array.from(new Uint8Array(d).slice(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
});
let settings: Settings = read('localStorage', SETTINGS_KEY, DEFAULTS);
if (!LANGS.includes(settings.lang)) settings.lang = 'en';
if (!/^#[0-9a-f]{6}$/i.test(settings.brand)) settings.brand = DEFAULTS.brand;
let log: LogEntry[] = readList<LogEntry>('sessionStorage', LOG_KEY);

// ---- the widget's configuration ----------------------------------------------

function widget(): HTMLElement {
  return document.querySelector('kyc-onboard') as HTMLElement;
}

/** Text colour (black or white) that reads on a background colour. */
function onColour(hex: string): string {
  const n = parseInt(hex.slice(1), 16);
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#ffffff' : '#111111';
}

function apply(): void {
  const el = widget();
  const root = document.documentElement;
  root.dataset.theme = settings.theme;
  // Dark: the widget's own dark palette (`theme="dark"`), on a dark partner page.
  if (settings.theme === 'dark') el.setAttribute('theme', 'dark');
  else el.setAttribute('theme', 'light');
  // Brand: the partner's colour through the widget's `--kyc-*` custom properties
  // (CSSOM, so the strict CSP needs no inline style). The rest of the brand look is in demo.css.
  if (settings.theme === 'brand') {
    root.style.setProperty('--brand', settings.brand);
    root.style.setProperty('--brand-on', onColour(settings.brand));
  } else {
    root.style.removeProperty('--brand');
    root.style.removeProperty('--brand-on');
  }
  el.setAttribute('lang', settings.lang);
  el.toggleAttribute('sms', settings.sms);
  // Server first: the verification's reference is the server's; the page sets none.
  if (settings.serverFirst || !ref) el.removeAttribute('customer-ref');
  else el.setAttribute('customer-ref', ref);

  $<HTMLInputElement>(`theme-${settings.theme}`).checked = true;
  $<HTMLInputElement>('brand-colour').value = settings.brand;
  $('brand-row').hidden = settings.theme !== 'brand';
  $<HTMLSelectElement>('lang').value = settings.lang;
  $<HTMLInputElement>('sms-option').checked = settings.sms;
  $<HTMLInputElement>('server-first').checked = settings.serverFirst;
}

// ---- start from the server (the partner server API) -----------------------------------
// A partner's server calls POST /v1/verifications with its server key and gives
// the page the client secret. The demo partner's "server" lives inside the
// worker (POST /sandbox/demo/start calls /v1 with the demo partner's
// development key); the page then sets `clientSecret` and a `prefill`, as a
// partner's page would.

type KycElement = HTMLElement & { clientSecret?: string; prefill?: unknown };

/** What a partner's account would already know about the person (the person may correct it). */
function demoPrefill(): unknown {
  return { name: { givenName: 'Alex', familyName: 'Rivera' }, dateOfBirth: `${new Date().getUTCFullYear() - 34}-05-17` };
}

async function startFromServer(): Promise<string | undefined> {
  await refReady;
  const res = await fetch('/sandbox/demo/start', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ customerRef: ref }),
  });
  const body = (await res.json().catch(() => ({}))) as { verificationId?: string; clientSecret?: string; errorCode?: string };
  if (!res.ok || !body.clientSecret) {
    addLog({ kind: 'note', name: `The server could not start a verification (${body.errorCode ?? res.status})` });
    return undefined;
  }
  try {
    sessionStorage.setItem(SECRET_KEY, body.clientSecret);
  } catch {
    /* the secret then lives only as long as this page */
  }
  addLog({ kind: 'note', name: `Your server started ${body.verificationId} (POST /v1/verifications, customerRef ${ref})` });
  return body.clientSecret;
}

/** Server first: the element gets the stored (or a new) client secret and the prefill before it first renders. */
async function prepareServerFirst(el: KycElement): Promise<void> {
  let secret: string | null | undefined;
  try {
    secret = sessionStorage.getItem(SECRET_KEY);
  } catch {
    secret = undefined;
  }
  el.clientSecret = secret ?? (await startFromServer());
  el.prefill = demoPrefill();
}

/** The demo partner's development server key (a local worker shows it; a deployed demo never does). */
async function showServerKey(): Promise<string | undefined> {
  try {
    const res = await fetch('/sandbox/demo/server-keys', { headers: { accept: 'application/json' } });
    if (!res.ok) return undefined;
    const { partners } = (await res.json()) as { partners: { partnerId: string; serverKey?: string }[] };
    const me = demoPartnerForHost(location.hostname);
    const key = partners.find((p) => p.partnerId === me.id)?.serverKey;
    if (!key) return undefined;
    await refReady;
    const pre = $('server-key');
    pre.textContent = `curl -H "Authorization: Bearer ${key}" \\\n  ${location.origin}/v1/verifications?customerRef=${ref}`;
    pre.hidden = false;
    return key;
  } catch {
    return undefined;
  }
}
const serverKey = showServerKey();

/** Server first, once complete: what the partner's server reads back, the verified person included. */
async function readBack(verificationId: string | undefined): Promise<void> {
  const key = await serverKey;
  if (!settings.serverFirst || !key || !verificationId) return;
  const res = await fetch(`/v1/verifications/${verificationId}?include=person`, { headers: { Authorization: `Bearer ${key}` } });
  if (!res.ok) return;
  const v = (await res.json()) as {
    status: string;
    result?: { outcome: string; reason?: string; vendor: string };
    customerRef?: string;
    person?: { name?: { givenName?: string; familyName?: string }; dateOfBirth?: { dateOfBirth?: string } };
  };
  addLog({
    kind: 'note',
    name: 'Your server read GET /v1/verifications/{id}?include=person',
    detail: {
      status: v.status,
      outcome: v.result?.outcome,
      vendor: v.result?.vendor,
      customerRef: v.customerRef,
      verifiedName: [v.person?.name?.givenName, v.person?.name?.familyName].filter(Boolean).join(' '),
      verifiedDateOfBirth: v.person?.dateOfBirth?.dateOfBirth,
    },
  });
}

function save(): void {
  write('localStorage', SETTINGS_KEY, settings);
  apply();
}

// ---- vendors and failover (the local stack's switch: /sandbox/demo/vendors) ------

interface VendorState {
  partners: { partnerId: string; vendors: string[]; failover: string; switched: boolean }[];
  vendors: { vendor: string; outage: string }[];
}
const VENDOR_NAMES: Record<string, string> = { idv: 'idv', stripe: 'Stripe' };
const partnerId = demoPartnerForHost(location.hostname).id;

function showVendors(state: VendorState): void {
  const mine = state.partners.find((p) => p.partnerId === partnerId);
  if (!mine) return;
  $('vendors-panel').hidden = false;
  const names = mine.vendors.map((v) => VENDOR_NAMES[v] ?? v);
  $('vendors-now').textContent =
    `${names.join(', then ')}${mine.failover === 'before_start' ? ' (failover before start)' : ''}${mine.switched ? '' : ', as configured'}`;
  const use = mine.vendors.join(',');
  for (const input of document.querySelectorAll<HTMLInputElement>('input[name="use"]'))
    input.checked = mine.switched && input.value === use;
  const down: string[] = [];
  for (const v of state.vendors) {
    const button = document.getElementById(`down-${v.vendor}`);
    if (!button) continue;
    const isDown = v.outage !== 'up';
    button.setAttribute('aria-pressed', String(isDown));
    button.textContent = `${isDown ? 'Bring' : 'Take'} ${VENDOR_NAMES[v.vendor] ?? v.vendor} ${isDown ? 'back up' : 'down'}`;
    if (isDown) down.push(VENDOR_NAMES[v.vendor] ?? v.vendor);
  }
  $('vendors-note').textContent = down.length
    ? `${down.join(' and ')} down (no answer to the worker). ${mine.failover === 'before_start' ? 'A new link goes to the next vendor; /ops counts the failover.' : 'Without failover, a new link fails until it is back.'}`
    : 'Every vendor is up.';
}

async function vendorSwitch(body?: unknown): Promise<void> {
  try {
    const res = await fetch('/sandbox/demo/vendors', {
      method: body ? 'POST' : 'GET',
      ...(body ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    if (res.ok) showVendors((await res.json()) as VendorState);
  } catch {
    /* not the local stack: the panel stays hidden */
  }
}

function initVendors(): void {
  for (const input of document.querySelectorAll<HTMLInputElement>('input[name="use"]'))
    input.addEventListener('change', () => void vendorSwitch({ partnerId, use: input.value }));
  for (const vendor of ['idv', 'stripe']) {
    $(`down-${vendor}`).addEventListener('click', (e) => {
      const down = (e.currentTarget as HTMLElement).getAttribute('aria-pressed') === 'true';
      void vendorSwitch({ down: { vendor, outage: down ? 'up' : 'unreachable' } });
    });
  }
  $('vendors-reset').addEventListener('click', () => {
    void vendorSwitch({ partnerId, use: 'settings', down: { vendor: 'idv', outage: 'up' } }).then(() =>
      vendorSwitch({ down: { vendor: 'stripe', outage: 'up' } }),
    );
  });
  void vendorSwitch();
}

// ---- the event log -------------------------------------------------------------

function time(iso: string): string {
  try {
    return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(new Date(iso));
  } catch {
    return iso;
  }
}

/** `detail` one key a line (`outcome: "failed"`), as compact as a log should be. */
function formatDetail(detail: unknown): string {
  if (detail === null || typeof detail !== 'object' || Array.isArray(detail)) return JSON.stringify(detail);
  const lines = Object.entries(detail as Record<string, unknown>).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  return lines.length ? lines.join('\n') : '{}';
}

function renderEntry(e: LogEntry): HTMLLIElement {
  const li = document.createElement('li');
  li.className = `log__entry log__entry--${e.kind}` + (e.kind === 'event' ? ` log__entry--${e.name}` : '');
  const head = document.createElement('div');
  head.className = 'log__head';
  const name = document.createElement(e.kind === 'event' ? 'code' : 'span');
  name.className = 'log__name';
  name.textContent = e.name;
  const t = document.createElement('time');
  t.dateTime = e.at;
  t.textContent = time(e.at);
  head.append(name, t);
  li.append(head);
  if (e.detail !== undefined) {
    const pre = document.createElement('pre');
    pre.className = 'log__detail';
    pre.textContent = formatDetail(e.detail);
    li.append(pre);
  }
  return li;
}

function renderLog(): void {
  const list = $('log');
  list.replaceChildren(...log.map(renderEntry).reverse());
  $('log-empty').hidden = log.length > 0;
}

function addLog(entry: Omit<LogEntry, 'at'>): void {
  const e = { ...entry, at: new Date().toISOString() };
  log = [...log, e].slice(-MAX_LOG);
  write('sessionStorage', LOG_KEY, log);
  const list = $('log');
  list.prepend(renderEntry(e));
  while (list.children.length > MAX_LOG) list.lastElementChild?.remove();
  $('log-empty').hidden = true;
}

/**
 * `kyc-complete`'s detail with the result token's `livemode` claim beside it
 * (read, not verified: the partner's server verifies), so the demo shows
 * whether the outcome is a test one.
 */
function withLivemode(detail: unknown): unknown {
  const token = (detail as { resultToken?: unknown } | null)?.resultToken;
  if (typeof token !== 'string') return detail;
  try {
    const claims = JSON.parse(new TextDecoder().decode(fromBase64url(token.split('.')[1]!))) as { livemode?: unknown };
    return typeof claims.livemode === 'boolean' ? { ...(detail as object), livemode: claims.livemode } : detail;
  } catch {
    return detail;
  }
}

for (const type of EVENTS) {
  document.addEventListener(type, (ev) => {
    addLog({ kind: 'event', name: type, detail: withLivemode((ev as CustomEvent).detail) });
    if (type === 'kyc-submit' || type === 'kyc-link') watchOutbox();
    if (type === 'kyc-link') rememberVerification((ev as CustomEvent<{ verificationId?: string }>).detail.verificationId);
    if (type === 'kyc-link') offerPhone((ev as CustomEvent<{ url?: string }>).detail.url);
    if (type === 'kyc-complete') void pollHooks(20);
    if (type === 'kyc-complete') void readBack((ev as CustomEvent<{ verificationId?: string }>).detail.verificationId);
  });
}

// ---- the partner's server: signed webhooks ------------------------------------------
// The demo partners' webhooks are received and checked inside the worker (the
// page may talk only to its own origin); the panel shows what that receiver
// accepted, and what it does with a forged event.

const HOOKS_KEY = 'kyc-demo:verifications';
let hooksTimer: ReturnType<typeof setTimeout> | undefined;

function rememberVerification(id: string | undefined): void {
  if (!id || !/^vrf_[0-9A-Z]{26}$/.test(id)) return;
  write('sessionStorage', HOOKS_KEY, [id, ...readList<string>('sessionStorage', HOOKS_KEY).filter((v) => v !== id)].slice(0, 5));
}

function hookItem(text: string, ok: boolean): HTMLLIElement {
  const li = document.createElement('li');
  li.className = ok ? 'hook hook--ok' : 'hook hook--refused';
  li.textContent = text;
  return li;
}

async function pollHooks(times: number): Promise<void> {
  clearTimeout(hooksTimer);
  const ids = readList<string>('sessionStorage', HOOKS_KEY);
  const items: HTMLLIElement[] = [];
  for (const id of ids) {
    try {
      const res = await fetch(`/sandbox/demo-webhooks/${id}`, { headers: { accept: 'application/json' } });
      if (!res.ok) continue;
      const { deliveries } = (await res.json()) as { deliveries: DemoDelivery[] };
      for (const d of deliveries) {
        const outcome = d.outcome ?? d.reason ?? '';
        // livemode false: the sandbox made this outcome; a partner's server acts on it only in a test setup.
        const mode = d.livemode === undefined ? '' : ` · livemode: ${d.livemode}`;
        items.push(hookItem(`${d.type} · ${outcome} · signature verified${mode} · ${id}`, true));
      }
    } catch {
      /* offline: try again later */
    }
  }
  const list = $('hooks');
  list.querySelectorAll('.hook--ok').forEach((li) => li.remove());
  list.prepend(...items);
  $('hooks-empty').hidden = list.children.length > 0;
  if (times > 1 && !items.length) hooksTimer = setTimeout(() => void pollHooks(times - 1), 1500);
}

/** What a partner's server does with an event nobody signed: refuses it. */
async function sendForged(): Promise<void> {
  const body = JSON.stringify({
    type: 'verification.completed',
    timestamp: new Date().toISOString(),
    data: {
      verificationId: readList<string>('sessionStorage', HOOKS_KEY)[0] ?? 'vrf_00000000000000000000000000',
      status: 'final',
      result: { outcome: 'verified' },
    },
  });
  const res = await fetch('/sandbox/demo-webhooks', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'webhook-id': 'msg_forged',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,Zm9yZ2VkIGJ5IHRoZSBwZXJzb24gaW4gZnJvbnQgb2YgdGhlIHNjcmVlbg==',
    },
    body,
  });
  $('hooks').prepend(hookItem(`Forged verification.completed · refused (${res.status}: the signature does not verify)`, false));
  $('hooks-empty').hidden = true;
}

// ---- the state pill ---------------------------------------------------------------

function showState(): void {
  const s = widget().getAttribute('state') || 'idle';
  const out = $('state');
  out.textContent = s;
  out.dataset.state = s;
}

// ---- the phone pane: the QR link opened beside the page ----------------------------

let phoneUrl = '';
/** A handoff link (the worker's own `/handoff/…` URL behind the QR code) can be opened as the phone. */
function offerPhone(url: string | undefined): void {
  const ok = !!url && new URL(url, location.href).pathname.startsWith('/handoff/');
  phoneUrl = ok ? url : '';
  $<HTMLButtonElement>('open-phone').disabled = !ok;
}
$('open-phone').addEventListener('click', () => {
  if (phoneUrl) window.open(phoneUrl, 'kyc-demo-phone', 'popup,width=390,height=800');
});

// ---- the SMS outbox ------------------------------------------------------------------

let outboxTimer: ReturnType<typeof setTimeout> | undefined;
let outboxSeen = '';
let outboxFastUntil = 0;
let outboxOff = false;

/** A text may be coming: look now, and often for a while. */
function watchOutbox(): void {
  outboxFastUntil = Date.now() + OUTBOX_FAST_FOR_MS;
  void pollOutbox();
}

function safeLink(u: string | undefined): string | undefined {
  if (!u) return undefined;
  try {
    const url = new URL(u, location.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function renderOutbox(messages: OutboxMessage[]): void {
  const key = JSON.stringify(messages);
  if (key === outboxSeen) return;
  outboxSeen = key;
  const list = $('outbox');
  const items = [...messages]
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
    .map((m) => {
      const li = document.createElement('li');
      li.className = 'sms';
      const head = document.createElement('div');
      head.className = 'sms__head';
      const to = document.createElement('span');
      to.className = 'sms__to';
      to.textContent = `To ${m.to}`;
      const t = document.createElement('time');
      t.dateTime = m.createdAt;
      t.textContent = time(m.createdAt);
      head.append(to, t);
      const body = document.createElement('p');
      body.className = 'sms__text';
      const link = safeLink(m.link);
      // The text quotes the link: make that part of it clickable.
      const at = link && m.link ? m.text.indexOf(m.link) : -1;
      if (link && at >= 0) {
        const a = document.createElement('a');
        a.href = link;
        a.target = '_blank';
        a.rel = 'noopener';
        a.textContent = m.link!;
        body.append(m.text.slice(0, at), a, m.text.slice(at + m.link!.length));
      } else {
        body.textContent = m.text;
      }
      li.append(head, body);
      if (link) {
        const open = document.createElement('a');
        open.className = 'button button--small sms__open';
        open.href = link;
        open.target = '_blank';
        open.rel = 'noopener';
        open.textContent = 'Open the link (as the phone)';
        li.append(open);
      }
      if (m.senderName) {
        const from = document.createElement('p');
        from.className = 'small';
        from.textContent = `Sender: ${m.senderName}`;
        li.append(from);
      }
      return li;
    });
  list.replaceChildren(...items);
  $('outbox-empty').hidden = messages.length > 0;
}

async function pollOutbox(): Promise<void> {
  clearTimeout(outboxTimer);
  if (outboxOff) return;
  try {
    const res = await fetch(`/sandbox/outbox?key=${encodeURIComponent(outbox)}`, { headers: { accept: 'application/json' } });
    if (res.status === 404) {
      $('outbox-empty').textContent = 'The sandbox is off on this server (a real vendor is configured): text messages go to real phones.';
      outboxOff = true; // no sandbox, nothing to poll
      return;
    }
    if (res.ok) {
      const data = (await res.json()) as { messages?: OutboxMessage[] };
      renderOutbox(Array.isArray(data.messages) ? data.messages : []);
    }
  } catch {
    /* the server restarted or is gone: try again later */
  }
  const wait = Date.now() < outboxFastUntil ? OUTBOX_POLL_FAST_MS : OUTBOX_POLL_SLOW_MS;
  if (!document.hidden) outboxTimer = setTimeout(() => void pollOutbox(), wait);
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) void pollOutbox();
});

// ---- start over ---------------------------------------------------------------------

/** A fresh widget (a partner would do the same: replace the element), an empty log. */
async function startOver(): Promise<void> {
  try {
    sessionStorage.removeItem(WIDGET_SESSION_KEY);
    sessionStorage.removeItem(SECRET_KEY);
  } catch {
    /* ignore */
  }
  log = [];
  write('sessionStorage', LOG_KEY, log);
  renderLog();
  const old = widget();
  const fresh = document.createElement('kyc-onboard') as KycElement;
  fresh.id = old.id;
  // Server first: a new verification from the server, its secret set before the element renders.
  if (settings.serverFirst) await prepareServerFirst(fresh);
  old.replaceWith(fresh);
  observer.disconnect();
  observer.observe(fresh, { attributes: true, attributeFilter: ['state'] });
  apply();
  showState();
}

// ---- scenarios ------------------------------------------------------------------------
// The states a person reaches after an ordinary mistake, one press away: a fresh widget with the form filled in (a
// `prefill`, as a partner's page would set it). The chosen scenario is kept for the tab, so the page the hosted flow
// returns to fills the form the same way; the data are the demo's own, no one's.

const SCENARIO_KEY = 'kyc-demo:scenario';
const SCENARIOS = {
  'scenario-typo': {
    familyName: 'Nomatch',
    number: '412 345 678',
    note: 'Press “Verify my identity”, then “Complete verification” on the sandbox’s page: the family name Nomatch finds no match, and the widget asks to check the details and try again, with the form as it was. Correct the family name and verify again: a second attempt of the same verification. Another no match, or “Fail verification”, ends it, and the widget shows the bank’s next step (its outcome slot).',
  },
  'scenario-number': {
    familyName: 'Rivera',
    number: '412 345 679',
    note: 'Choose “Text me a link” and verify: the text goes to +61 412 345 679, one digit off. Press “Change my number”: the texted link stops working, and the form comes back with every value kept.',
  },
} as const;
type ScenarioId = keyof typeof SCENARIOS;

/** Fills the widget for a scenario (nothing the person typed is replaced) and says what to do next. */
function applyScenario(id: ScenarioId): void {
  const s = SCENARIOS[id];
  (widget() as KycElement).prefill = {
    name: { givenName: 'Alex', familyName: s.familyName },
    dateOfBirth: `${new Date().getUTCFullYear() - 34}-05-17`,
    phone: { code: '+61', number: s.number },
  };
  $('scenario-note').textContent = s.note;
}

async function startScenario(id: ScenarioId): Promise<void> {
  try {
    sessionStorage.setItem(SCENARIO_KEY, id);
  } catch {
    /* ignore */
  }
  await startOver();
  applyScenario(id);
}

// ---- wiring ---------------------------------------------------------------------------

const observer = new MutationObserver(showState);

function init(): void {
  $('customer-ref').textContent = ref;
  renderLog();
  const back = new URLSearchParams(location.search).get('kyc_return');
  if (back === 'success' || back === 'error') {
    addLog({ kind: 'note', name: `Back from the hosted flow (kyc_return=${back})` });
  }
  apply();
  showState();
  observer.observe(widget(), { attributes: true, attributeFilter: ['state'] });
  if (settings.serverFirst) {
    // Set before the widget's script upgrades the element (this module runs first): a reload or a return resumes.
    let stored: string | null;
    try {
      stored = sessionStorage.getItem(SECRET_KEY);
    } catch {
      stored = null;
    }
    if (stored) Object.assign(widget() as KycElement, { clientSecret: stored, prefill: demoPrefill() });
    else void startOver();
  }

  for (const id of ['theme-light', 'theme-dark', 'theme-brand']) {
    $(id).addEventListener('change', (e) => {
      settings = { ...settings, theme: (e.target as HTMLInputElement).value as Theme };
      save();
    });
  }
  $('brand-colour').addEventListener('input', (e) => {
    settings = { ...settings, brand: (e.target as HTMLInputElement).value };
    save();
  });
  languageOptions($<HTMLSelectElement>('lang'));
  $<HTMLSelectElement>('lang').value = settings.lang;
  $('lang').addEventListener('change', (e) => {
    settings = { ...settings, lang: (e.target as HTMLSelectElement).value };
    save();
  });
  $('sms-option').addEventListener('change', (e) => {
    settings = { ...settings, sms: (e.target as HTMLInputElement).checked };
    save();
  });
  $('reset').addEventListener('click', () => {
    try {
      sessionStorage.removeItem(SCENARIO_KEY);
    } catch {
      /* ignore */
    }
    $('scenario-note').textContent = '';
    void startOver();
  });
  for (const id of Object.keys(SCENARIOS) as ScenarioId[]) $(id).addEventListener('click', () => void startScenario(id));
  let scenario: string | null = null;
  try {
    scenario = sessionStorage.getItem(SCENARIO_KEY);
  } catch {
    /* ignore */
  }
  if (scenario && scenario in SCENARIOS) applyScenario(scenario as ScenarioId);
  $('server-first').addEventListener('change', (e) => {
    settings = { ...settings, serverFirst: (e.target as HTMLInputElement).checked };
    write('localStorage', SETTINGS_KEY, settings);
    void startOver();
  });
  $('clear-log').addEventListener('click', () => {
    log = [];
    write('sessionStorage', LOG_KEY, log);
    renderLog();
  });
  $('forge-hook').addEventListener('click', () => void sendForged());
  initVendors();
  void pollOutbox();
  void pollHooks(3);
}

void refReady.then(init);

// ---- which demo partner this page is -----------------------------------------------
// The worker resolves the partner from the page's origin: 127.0.0.1 and localhost
// (same port) are two partners with their own child accounts (worker/demo/partners.ts).
function showPartner(): void {
  const me = demoPartnerForHost(location.hostname);
  const [first, ...rest] = me.displayName.split(' ');
  const brand = $('brand-name');
  const sub = document.createElement('span');
  sub.className = 'brand__sub';
  sub.textContent = rest.join(' ');
  brand.replaceChildren(`${first} `, sub);
  document.title = `Open an account · ${me.displayName} (kyc-onboard demo)`;
  for (const el of document.querySelectorAll('[data-partner-name]')) el.textContent = me.displayName;
  $('partner-child').textContent = me.childId;
  const other = DEMO_PARTNERS.find((d) => d !== me)!;
  // Only where the other host reaches this same worker: a local run.
  if (DEMO_PARTNERS.some((d) => d.host === location.hostname)) {
    const url = new URL(location.href);
    url.hostname = other.host;
    url.search = '';
    url.hash = '';
    $<HTMLAnchorElement>('partner-other').href = url.href;
    $('partner-other-name').textContent = other.displayName;
    $('partner-other-host').textContent = other.host;
    $('partner-switch').hidden = false;
  }
}
showPartner();

// ---- the script tag to pin --------------------------------------------------------
// The build writes the versioned entry's path and its SRI hash
// (scripts/build-package.mjs → /widget-integrity.json): shown, never typed.
async function showPinnedScript(): Promise<void> {
  const box = $('pin-snippet');
  try {
    const res = await fetch('/widget-integrity.json', { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(String(res.status));
    const { path, integrity } = (await res.json()) as { path: string; integrity: string };
    box.textContent = `<script type="module" src="${location.origin}${path}"\n  integrity="${integrity}" crossorigin="anonymous"></script>`;
  } catch {
    box.textContent = 'Not built: run `npm run build`.';
  }
}
void showPinnedScript();
