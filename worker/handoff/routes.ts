/**
 * The cross-device handoff's pages on the worker's own origin:
 *   GET /handoff/:verificationId?t=…         the URL behind the QR code or
 *       the copied link: a page naming the partner with a "Continue" button
 *       (GET and HEAD never use the link up: link previews and mail scanners
 *       open links too);
 *   POST /handoff/:verificationId?t=…        that button: single use, until
 *       the link expires; forwards the phone to the vendor's hosted flow
 *       (a vendor whose URL is one-time is asked for a fresh one here).
 *   GET /handoff/:verificationId/return?r=…  where a handed-off hosted flow
 *       ends (its success and error redirect): single use; the worker asks
 *       the vendor at once, and the phone reads "All done: go back to your
 *       computer" (or a calm "could not finish"), never an error.
 */
import type { Context } from 'hono';
import { Hono } from 'hono/tiny';
import type { AppEnv } from '../app-env';
import { ApiError, errorName } from '../lib/errors';
import { lifecycle } from '../verifications/lifecycle';
import { VERIFICATION_ID, vendorOf } from '../verifications/verification';
import { partnerById } from '../partners/resolve';
import { codePage, continuePage, HANDOFF_CSS, handoffPage, whoLine } from './pages';
import { pageLang, pageStrings, type PageLang, type PageStrings } from './page-strings';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import { enforceClient } from '../lib/limits';
import { getCookie, setCookie } from '../lib/cookie';
import { log } from '../lib/log';
import { safeEqual } from '../lib/random';
import { urlToOpen } from '../vendors/hosted-url';
import { returnParamsOf } from '../vendors/return-params';
import { adapterOfRecord } from '../verifications/verification-store';

const TOKEN = /^[A-Za-z0-9_-]{16,64}$/;

function headers(c: Context<AppEnv>, formAction = "'none'") {
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action ${formAction}`,
  );
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-store');
}

/** The page's language: the widget's, which the worker put in the URL as `l`, else the phone's. */
const langOf = (c: Context<AppEnv>): PageLang => pageLang(c.req.query('l'), c.req.header('Accept-Language'));

type PageName = { [K in keyof PageStrings]: PageStrings[K] extends readonly [string, string] ? K : never }[keyof PageStrings];

/**
 * The display name of the partner that asked for this verification's check, for "Requested by …" on each of its
 * pages; undefined when the URL names no verification that can be read (nothing to say, never an error).
 */
async function partnerNameOf(c: Context<AppEnv>): Promise<string | undefined> {
  const vid = c.req.param('verificationId') ?? '';
  if (!VERIFICATION_ID.test(vid)) return undefined;
  try {
    const v = await c.var.ports.verifications.execute(vid, { type: 'read' });
    return v ? (await partnerById(c.env, c.var.ports, v.workerOrigin, v.partnerId))?.displayName : undefined;
  } catch {
    return undefined;
  }
}

/** Why a handoff link no longer works, as its page's message says (`linkGone`: nothing more is known). */
type GoneWhy = 'linkGone' | 'linkUsed' | 'linkReplaced' | 'linkExpired' | 'linkWithdrawn';

/**
 * Why this handoff link does not open (`handoff.open` refused it), from the verification's record: taken back on the
 * first device, a newer link made since, already opened once, or expired. A link of no known verification or token
 * is just gone.
 */
async function goneWhy(c: Context<AppEnv>, vid: string, token: string): Promise<GoneWhy> {
  const v = await c.var.ports.verifications.execute(vid, { type: 'read' }).catch(() => undefined);
  const h = v?.handoff;
  if (!v || h?.kind !== 'link') return 'linkGone';
  if (lifecycle(v) === 'canceled') return 'linkWithdrawn';
  const old = h.replaced?.find((r) => safeEqual(r.token, token));
  if (old) return old.opened ? 'linkUsed' : 'linkReplaced';
  if (!safeEqual(h.openToken, token)) return 'linkGone';
  if (h.opened) return 'linkUsed';
  // Its own token, never opened, and refused: its time ran out (the store's clock decided), unless the check is over.
  return lifecycle(v) === 'final' ? 'linkGone' : 'linkExpired';
}

/** The page of a handoff link that does not open: "This link no longer works", and why. */
async function gonePage(c: Context<AppEnv>, vid: string, token: string) {
  return page(c, 'linkGone', 410, await goneWhy(c, vid, token));
}

async function page(c: Context<AppEnv>, name: PageName, status: 200 | 404 | 410 | 429 = 200, why?: GoneWhy) {
  headers(c);
  const t = await pageStrings(c.env.ASSETS, langOf(c));
  const [title, generic] = t[name];
  const message = why && why !== 'linkGone' ? t[why] : generic;
  c.header('Content-Language', t.lang);
  // A spent request budget reads nothing more.
  const partner = status === 429 ? undefined : await partnerNameOf(c);
  return c.html(handoffPage(t.lang, title, message, '', whoLine(t, partner)), status);
}

/** The code form of a texted link's return page (a wrong code is a 400 for what it is). */
async function codeForm(c: Context<AppEnv>, vid: string, problem?: (t: PageStrings) => string) {
  headers(c, "'self'");
  const lang = langOf(c);
  const t = await pageStrings(c.env.ASSETS, lang);
  c.header('Content-Language', t.lang);
  // The form keeps the language asked for: the next page may find its strings.
  const partner = await partnerNameOf(c);
  return c.html(codePage(t.lang, t, `/handoff/${vid}/return?l=${lang}`, problem?.(t), partner), problem ? 400 : 200);
}
const sixDigits = (t: PageStrings) => t.sixDigits;

/**
 * The browser that arrived with the return secret keeps its key in this
 * cookie (HttpOnly, scoped to this verification's return page): only that
 * browser may enter the code. The name carries the verification so two
 * checks on one phone do not overwrite each other.
 */
const cookieName = (vid: string) => `kyc_claim_${vid.slice(4)}`;
const CODE = /^\d{6}$/;

const clientBudget = createMiddleware<AppEnv>(async (c, next) => {
  try {
    await enforceClient(c.env, c.req.raw.headers);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    c.header('Retry-After', err.headers['Retry-After'] ?? '60');
    return page(c, 'tooMany', 429);
  }
  await next();
});

export const handoff = new Hono<AppEnv>()
  .get('/handoff/page.css', (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(HANDOFF_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' });
  })
  // The pages spend the client's one budget, as /api does (lib/limits.ts): a
  // calm page, not an ErrorObject, when it is spent.
  .use('/handoff/:verificationId/*', clientBudget)
  .use('/handoff/:verificationId', clientBudget)
  .get('/handoff/:verificationId', async (c) => {
    const vid = c.req.param('verificationId');
    const token = c.req.query('t') ?? '';
    if (!VERIFICATION_ID.test(vid) || !TOKEN.test(token)) return page(c, 'linkGone', 404);
    const store = c.var.ports.verifications;
    // Looked at, not used: only the "Continue" POST below forwards (and uses the link up).
    const hosted = await store.execute(vid, { type: 'handoff.open', token, consume: false });
    if (!hosted) return gonePage(c, vid, token);
    const v = await store.execute(vid, { type: 'read' });
    const partner = v ? await partnerById(c.env, c.var.ports, v.workerOrigin, v.partnerId).catch(() => undefined) : undefined;
    // The form posts here and is redirected to the vendor's hosted flow: browsers hold redirects to form-action too.
    headers(c, `'self' ${new URL(hosted).origin}`);
    const lang = langOf(c);
    const t = await pageStrings(c.env.ASSETS, lang);
    c.header('Content-Language', t.lang);
    const action = `/handoff/${vid}?t=${encodeURIComponent(token)}&l=${lang}`;
    return c.html(continuePage(t.lang, t, action, partner?.displayName));
  })
  // bodyLimit types its onError with Hono's default Context; it runs inside this app.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-argument
  .post('/handoff/:verificationId', bodyLimit({ maxSize: 1024, onError: (c) => page(c, 'linkGone', 404) }), async (c) => {
    const vid = c.req.param('verificationId');
    const token = c.req.query('t') ?? '';
    if (!VERIFICATION_ID.test(vid) || !TOKEN.test(token)) return page(c, 'linkGone', 404);
    const store = c.var.ports.verifications;
    // A vendor whose hosted URL is one-time (`openUrl`) is asked for a fresh one before the link is used up: a
    // vendor fault leaves the link as it was, for another try (vendors/hosted-url.ts).
    const seen = await store.execute(vid, { type: 'handoff.open', token, consume: false });
    if (!seen) return gonePage(c, vid, token);
    const v = await store.execute(vid, { type: 'read' });
    const fresh = v ? await urlToOpen(await adapterOfRecord(c.env, c.var.ports, v), v, seen) : undefined;
    if (fresh === undefined) return gonePage(c, vid, token);
    const hosted = await store.execute(vid, { type: 'handoff.open', token, consume: true });
    if (!hosted) return gonePage(c, vid, token);
    c.header('Referrer-Policy', 'no-referrer'); // the handoff token stays out of the vendor's logs
    c.header('Cache-Control', 'no-store');
    return c.redirect(fresh, 303);
  })
  .get('/handoff/:verificationId/return', async (c) => {
    const vid = c.req.param('verificationId');
    const secret = c.req.query('r') ?? '';
    if (!VERIFICATION_ID.test(vid) || !TOKEN.test(secret)) return page(c, 'returnGone', 404);
    const outcome = c.req.query('kyc_return') === 'success' ? 'success' : 'error';
    // A link the person took back on the first device ("Use this device instead", "Change my number"): it no longer works.
    const current = await c.var.ports.verifications.execute(vid, { type: 'read' });
    if (current && lifecycle(current) === 'canceled') return page(c, 'linkGone', 410, 'linkWithdrawn');
    // What the verification's vendor appended to the return URL: it only makes the worker ask sooner.
    const params = current ? returnParamsOf(vendorOf(current), (key) => c.req.query(key)) : {};
    const hint = Object.keys(params).length ? { params } : {};
    const arrived = await c.var.ports.verifications.execute(vid, { type: 'arrive', secret, outcome, hint });
    if (!arrived) return page(c, 'returnGone', 410);
    if (arrived.needsCode) {
      setCookie(c, cookieName(vid), arrived.browserKey, {
        path: `/handoff/${vid}/return`,
        httpOnly: true,
        sameSite: 'Strict',
        secure: new URL(c.req.url).protocol === 'https:',
        maxAge: 24 * 60 * 60,
      });
      return codeForm(c, vid);
    }
    return page(c, outcome === 'success' ? 'done' : 'notFinished');
  })
  .post(
    '/handoff/:verificationId/return',
    // eslint-disable-next-line @typescript-eslint/no-unsafe-argument -- bodyLimit types its onError with Hono's default Context
    bodyLimit({ maxSize: 1024, onError: (c) => codeForm(c, c.req.param('verificationId') ?? '', sixDigits) }),
    async (c) => {
      const vid = c.req.param('verificationId');
      const key = getCookie(c, cookieName(vid)) ?? '';
      if (!VERIFICATION_ID.test(vid) || !TOKEN.test(key)) return page(c, 'returnGone', 410);
      const type = c.req.header('Content-Type') ?? '';
      if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) return codeForm(c, vid, sixDigits);
      const form = await c.req.parseBody();
      const code = typeof form.code === 'string' ? form.code.replace(/\s+/g, '') : '';
      // A malformed code costs no try: only a real guess is counted.
      if (!CODE.test(code)) return codeForm(c, vid, sixDigits);
      const outcome = await c.var.ports.verifications.execute(vid, { type: 'claim', browserKey: key, code });
      switch (outcome.kind) {
        case 'claimed':
          return page(c, outcome.returned === 'error' ? 'notFinished' : 'done');
        case 'wrong':
          return codeForm(c, vid, (t) => t.wrongCode(outcome.triesLeft));
        case 'ended':
          return page(c, 'claimEnded', 410);
        default:
          return page(c, 'returnGone', 410);
      }
    },
  )
  .onError((err, c) => {
    // The phone's person has nothing to fix: any fault reads as a calm page.
    if (!(err instanceof ApiError)) log.error('handoff_page_failed', { error: errorName(err) });
    return page(c, 'notFinished');
  });
