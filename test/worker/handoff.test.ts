/**
 * The cross-device handoff in node (msw as the vendor, a controlled store):
 * a link made with `handoff: true` answers the worker's single-use handoff
 * URL and its QR code (decoded here with jsQR), never the vendor's URL, and a
 * 6-digit code; GET and HEAD of the handoff URL show a page naming the
 * partner and use nothing up; its "Continue" POST forwards once; the hosted
 * flow ends on the worker's return page, which asks the vendor at once and
 * asks for the code; with it the phone reads "All done" and the first device
 * has the final outcome and a result token.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Env } from '../../worker/lib/env';
import { decodeQr } from '../support/qr';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { http, HttpResponse } from 'msw';
import {
  baseEnv,
  call,
  linkAnswer,
  okVendor,
  pageAssets,
  PARTNER,
  person,
  startHarness,
  stopHarness,
  vendor,
  vendorRequests,
  VENDOR,
  WORKER,
} from './harness';

before(startHarness);
after(stopHarness);
beforeEach(() => vendor(...okVendor));

const resultOf = (e: Env, session: string) => call('/api/result', { method: 'POST', json: { session }, headers: { Origin: PARTNER } }, e);

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

/** The return page's code form answered: the cookie it set, and the code posted. */
async function enterCode(e: Env, form: { headers: Headers }, returnPath: string, code: string) {
  const cookie = (form.headers.get('Set-Cookie') ?? '').split(';')[0]!;
  return call(
    returnPath,
    { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie }, body: `code=${code}` },
    e,
  );
}

function env(): Env {
  // The page dictionaries other than English come from the static assets (here: their sources).
  const e: Env = { ...baseEnv, ASSETS: pageAssets as unknown as Env['ASSETS'] };
  useNodeTwins(e, { verifications: new MemoryVerifications(e) });
  return e;
}

describe('handoff to another device', () => {
  it('answers a single-use handoff URL on the worker and its QR code, never the vendor URL', async () => {
    const e = env();
    const res = await call('/api/onboarding-link', { method: 'POST', json: { ...person, handoff: true } }, e);
    assert.equal(res.status, 200, res.text);
    const { url, qr, verificationId, claimCode } = res.json as {
      url: string;
      qr: { size: number; modules: string };
      verificationId: string;
      claimCode: string;
    };
    assert.match(url, new RegExp(`^${WORKER}/handoff/${verificationId}\\?t=[A-Za-z0-9_-]{22}$`));
    assert.match(claimCode, /^\d{6}$/, 'a QR or copied link comes with a code, as a texted one does');
    assert.ok(!res.text.includes(linkAnswer.url), 'the vendor URL stays with the worker');
    assert.equal(decodeQr(qr), url, 'the QR code decodes to the handoff URL');
    const sent = vendorRequests[0]!.body as { successRedirectURL: string; errorRedirectURL: string };
    assert.match(
      sent.successRedirectURL,
      new RegExp(`^${WORKER}/handoff/${verificationId}/return\\?r=[A-Za-z0-9_-]{22}&kyc_return=success$`),
    );
    assert.match(sent.errorRedirectURL, /&kyc_return=error$/);
  });

  it('forwards the phone once; the return page asks the vendor at once and says All done; the first device gets the outcome', async () => {
    const e = env();
    const link = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, handoff: true, customerRef: 'acct-7' } }, e))
      .json;
    const back = new URL((vendorRequests[0]!.body as { successRedirectURL: string }).successRedirectURL);
    // Until the phone finishes, the vendor says CHECKING.
    vendor(
      okVendor[0]!,
      http.post(`${VENDOR}/idv/v2/idvalidate/result`, () => HttpResponse.json({ checkStatus: 'CHECKING' })),
    );
    const unopened = await resultOf(e, link.session);
    assert.equal(unopened.status, 200, unopened.text);
    assert.equal(unopened.json.checkStatus, 'CHECKING');
    assert.equal(unopened.json.phoneOpened, undefined);
    // A mail scanner's HEAD and a link preview's GET: a page naming the partner, nothing used up.
    const head = await call(pathOf(link.url), { method: 'HEAD' }, e);
    assert.equal(head.status, 200);
    const preview = await call(pathOf(link.url), {}, e);
    assert.equal(preview.status, 200);
    assert.match(preview.text, /Continue your identity check/);
    assert.match(preview.text, /Requested by partner\.example\./);
    assert.match(preview.text, /<form method="post" action="[^"]+">\n<button type="submit">Continue<\/button>/);
    assert.ok(!preview.text.includes(linkAnswer.url), 'the page does not hold the hosted flow');
    assert.equal(preview.headers.get('Cache-Control'), 'no-store');
    assert.equal((await resultOf(e, link.session)).json.phoneOpened, undefined, 'looking is not opening');
    const action = /action="([^"]+)"/.exec(preview.text)![1]!.replace(/&#38;/g, '&');
    const open = await call(action, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' }, e);
    assert.equal(open.status, 303);
    assert.equal(open.headers.get('Location'), linkAnswer.url);
    const again = await call(action, { method: 'POST' }, e);
    assert.equal(again.status, 410);
    assert.equal((await call(pathOf(link.url), {}, e)).status, 410, 'used up: GET says so too');
    // The first device can say "Opened on your phone" (nothing else about the phone).
    const opened = (await resultOf(e, link.session)).json;
    assert.equal(opened.checkStatus, 'CHECKING');
    assert.equal(opened.phoneOpened, true);
    vendor(...okVendor);
    assert.match(again.text, /This link no longer works/);

    vendorRequests.length = 0;
    const ret = await call(`${back.pathname}${back.search}&checkId=chk-42`, {}, e);
    assert.equal(ret.status, 200);
    assert.match(ret.text, /One last step/, 'the return page asks for the code shown on the first device');
    assert.match(ret.headers.get('Content-Security-Policy') ?? '', /default-src 'none'/);
    assert.ok(vendorRequests[0], 'asked at once');
    assert.equal((vendorRequests[0].body as { checkId?: string }).checkId, undefined, "the phone's check id is a hint, never sent");
    const reuse = await call(`${back.pathname}${back.search}`, {}, e);
    assert.equal(reuse.status, 410, 'the return secret is single use');
    const pending = await resultOf(e, link.session);
    assert.equal(pending.json.checkStatus, 'CHECKING', 'not credited before the code');
    assert.equal(pending.json.resultToken, undefined);
    const done = await enterCode(e, ret, back.pathname, link.claimCode);
    assert.match(done.text, /<h1>All done<\/h1>/);
    assert.match(done.text, /Go back to your computer/);

    const first = await call('/api/result', { method: 'POST', json: { session: link.session }, headers: { Origin: PARTNER } }, e);
    assert.equal(first.json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.ok(first.json.resultToken);
  });

  it('a return after the flow failed reads calmly; forged or unknown handoff URLs get a calm page, no vendor call', async () => {
    const e = env();
    const link = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, handoff: true } }, e)).json;
    const err = new URL((vendorRequests[0]!.body as { errorRedirectURL: string }).errorRedirectURL);
    vendorRequests.length = 0;
    const ret = await call(`${err.pathname}${err.search}`, {}, e);
    assert.equal(ret.status, 200);
    const calm = await enterCode(e, ret, err.pathname, link.claimCode);
    assert.match(calm.text, /We could not finish here/);
    vendorRequests.length = 0;
    for (const path of [
      `/handoff/${link.verificationId}?t=${'A'.repeat(22)}`,
      `/handoff/${link.verificationId}`,
      `/handoff/vrf_not-an-id?t=${'A'.repeat(22)}`,
      `/handoff/${link.verificationId}/return?r=${'B'.repeat(22)}&kyc_return=success`,
    ]) {
      const res = await call(path, {}, e);
      assert.ok([404, 410].includes(res.status), `${path}: ${res.status}`);
      assert.doesNotMatch(res.text, /errorCode/);
    }
    assert.equal(vendorRequests.length, 0);
  });

  it('refuses handoff together with sendSMS, naming the field, before any vendor call', async () => {
    const res = await call('/api/onboarding-link', { method: 'POST', json: { ...person, handoff: true, sendSMS: true } }, env());
    assert.equal(res.status, 400);
    assert.ok(res.json.issues.some((i: { issueLocation: string }) => i.issueLocation === 'handoff'));
    assert.equal(vendorRequests.length, 0);
  });
});

describe('the phone pages speak the widget’s language', () => {
  it('from the link request’s lang (carried in the URLs), else the phone’s Accept-Language, else English', async () => {
    const e = env();
    const link = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, handoff: true, lang: 'fr-CA' } }, e)).json;
    assert.match(link.url, /&l=fr$/);
    const back = new URL((vendorRequests[0]!.body as { successRedirectURL: string }).successRedirectURL);
    assert.equal(back.searchParams.get('l'), 'fr');
    const preview = await call(pathOf(link.url), { headers: { 'Accept-Language': 'de' } }, e);
    assert.match(preview.text, /Poursuivre votre vérification d’identité/);
    assert.match(preview.text, /Demandée par partner\.example\./);
    await call(pathOf(link.url), { method: 'POST' }, e);
    const frForm = await call(`${back.pathname}${back.search}`, {}, e);
    const done = await enterCode(e, frForm, `${back.pathname}?l=fr`, link.claimCode);
    assert.match(done.text, /<html lang="fr">/);
    assert.match(done.text, /<h1>C’est terminé<\/h1>/);
    assert.equal(done.headers.get('Content-Language'), 'fr');
    // A used link, opened again on a German phone with the French link: the widget's language wins.
    assert.match((await call(pathOf(link.url), { headers: { 'Accept-Language': 'de' } }, e)).text, /Ce lien ne fonctionne plus/);
    // No language in the URL: the phone's first one with a dictionary (Georgian has none), right to left where it reads so.
    const ar = await call(`/handoff/${link.verificationId}?t=${'A'.repeat(22)}`, { headers: { 'Accept-Language': 'ka, ar;q=0.8' } }, e);
    assert.match(ar.text, /<html lang="ar" dir="rtl">/);
    assert.match(
      (await call(`/handoff/${link.verificationId}?t=${'A'.repeat(22)}`, { headers: { 'Accept-Language': 'ka' } }, e)).text,
      /<html lang="en">/,
    );
    // A texted link's code form, in Spanish, keeps the language through a wrong code.
    vendor(...okVendor);
    const sms = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true, lang: 'es' } }, e)).json;
    const ret = new URL(
      (vendorRequests.find((r) => r.url.endsWith('/onboarding-url'))!.body as { successRedirectURL: string }).successRedirectURL,
    );
    const form = await call(`${ret.pathname}${ret.search}`, {}, e);
    assert.match(form.text, /Un último paso/);
    assert.match(form.text, new RegExp(`action="/handoff/${sms.verificationId}/return\\?l=es"`));
    const cookie = (form.headers.get('Set-Cookie') ?? '').split(';')[0]!;
    const wrong = await call(
      `/handoff/${sms.verificationId}/return?l=es`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: WORKER },
        body: `code=${sms.claimCode === '000000' ? '111111' : '000000'}`,
      },
      e,
    );
    assert.match(wrong.text, /Ese código no es correcto\. Quedan 4 intentos\./);
  });

  it('in a sample of the 48 languages, from l and from Accept-Language (by its weights), right to left where they read so', async () => {
    const e = env();
    const gone = (query: string, acceptLanguage?: string) =>
      call(
        `/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=${'A'.repeat(22)}${query}`,
        acceptLanguage ? { headers: { 'Accept-Language': acceptLanguage } } : {},
        e,
      );
    const cases: [string, string | undefined, string, RegExp, boolean][] = [
      // [l, Accept-Language, page language, its words, right to left]
      ['&l=he', 'en', 'he', /<h1>הקישור הזה כבר לא פעיל<\/h1>/, true],
      ['&l=ja', undefined, 'ja', /<h1>このリンクは使用できません<\/h1>/, false],
      ['&l=zh-Hant', undefined, 'zh-Hant', /<h1>這個連結已失效<\/h1>/, false],
      ['&l=pt-BR', undefined, 'pt-BR', /<h1>Este link não funciona mais<\/h1>/, false],
      ['&l=pl', 'de', 'pl', /<h1>Ten link już nie działa<\/h1>/, false],
      ['', 'fa-IR,fa;q=0.9,en;q=0.5', 'fa', /<h1>این پیوند دیگر کار نمی‌کند<\/h1>/, true],
      ['', 'en;q=0.2, uk;q=0.9', 'uk', /<h1>Це посилання більше не працює<\/h1>/, false],
      ['', 'zh-TW', 'zh-Hant', /<h1>這個連結已失效<\/h1>/, false],
      ['', 'nn-NO', 'nb', /<h1>Lenken virker ikke lenger<\/h1>/, false],
      ['', 'tl', 'fil', /<h1>Hindi na gumagana ang link na ito<\/h1>/, false],
      ['', 'ka, sw;q=0.5', 'sw', /<h1>Kiungo hiki hakifanyi kazi tena<\/h1>/, false],
      ['&l=xx', 'ka', 'en', /<h1>This link no longer works<\/h1>/, false],
    ];
    for (const [query, accept, lang, words, rtl] of cases) {
      const res = await gone(query, accept);
      const what = `l=${query} Accept-Language=${accept}`;
      assert.equal(res.status, 410, what);
      assert.match(res.text, new RegExp(`<html lang="${lang}"${rtl ? ' dir="rtl"' : ''}>`), what);
      assert.match(res.text, words, what);
      assert.equal(res.headers.get('Content-Language'), lang, what);
    }
    // Each language is read from the assets once, then kept in memory.
    const reads = pageAssets.reads.filter((r) => r === '/i18n/pages/zh-Hant.json');
    assert.equal(reads.length, 1);
  });

  it('a wrong code counts its tries in the language’s plural forms (Intl.PluralRules)', async () => {
    const { pageStrings } = await import('../../worker/handoff/page-strings');
    const assets = pageAssets as unknown as Env['ASSETS'];
    const pl = await pageStrings(assets, 'pl');
    assert.equal(pl.wrongCode(1), 'Ten kod jest nieprawidłowy. Została 1 próba.');
    assert.equal(pl.wrongCode(3), 'Ten kod jest nieprawidłowy. Zostały 3 próby.');
    assert.equal(pl.wrongCode(5), 'Ten kod jest nieprawidłowy. Zostało 5 prób.');
    const en = await pageStrings(assets, 'en');
    assert.equal(en.wrongCode(1), 'That code is not right. 1 try left.');
    assert.equal(en.wrongCode(4), 'That code is not right. 4 tries left.');
  });

  it('without the assets (or when a file cannot be read) the page is English, and says so in its lang', async () => {
    const e: Env = { ...baseEnv };
    useNodeTwins(e, { verifications: new MemoryVerifications(e) });
    const res = await call(`/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=${'A'.repeat(22)}&l=is`, {}, e);
    assert.match(res.text, /<html lang="en">/);
    assert.match(res.text, /<h1>This link no longer works<\/h1>/);
    assert.equal(res.headers.get('Content-Language'), 'en');
  });

  it('refuses a lang that is not a language tag, naming the field', async () => {
    const res = await call('/api/onboarding-link', { method: 'POST', json: { ...person, handoff: true, lang: 'fr"><script>' } }, env());
    assert.equal(res.status, 400);
    assert.equal(res.json.issues[0].issueLocation, 'lang');
  });
});
