/**
 * The phone's pages in workerd with the real static-assets binding:
 * the page dictionaries other than English are assets (`/i18n/pages/<lang>.json`,
 * copied unchanged from worker/handoff/page-strings/ by the build; here into a
 * directory of the test's own), read through `ASSETS` and kept in memory. The
 * language comes from `l`, else `Accept-Language`; right to left where it reads so.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import { ROOT } from '../support/wrangler';

let worker: MiniflareWorker;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kyc-assets-'));
  cpSync(join(ROOT, 'worker/handoff/page-strings'), join(dir, 'i18n/pages'), {
    recursive: true,
    filter: (f) => !f.endsWith('same-as-english.json'),
  });
  worker = await startMiniflareWorker({ assets: dir });
});
after(async () => {
  await worker?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A handoff link that no longer works: the page every language has. */
const gone = (query: string, acceptLanguage?: string) =>
  fetch(`${worker.url}/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=${'A'.repeat(22)}${query}`, {
    headers: acceptLanguage ? { 'Accept-Language': acceptLanguage } : {},
  });

describe('the phone’s pages in workerd, dictionaries from the static assets', () => {
  it('speak the language of l, else of Accept-Language, right to left for ar/he/fa/ur, else English', async () => {
    const cases: [string, string | undefined, string, string, boolean][] = [
      ['&l=ar', undefined, 'ar', 'هذا الرابط لم يعد يعمل', true],
      ['&l=ur', 'de', 'ur', 'یہ لنک اب کام نہیں کرتا', true],
      ['&l=ko', undefined, 'ko', '이 링크는 더 이상 사용할 수 없습니다', false],
      ['&l=el', undefined, 'el', 'Αυτός ο σύνδεσμος δεν λειτουργεί πια', false],
      ['', 'he-IL,he;q=0.9', 'he', 'הקישור הזה כבר לא פעיל', true],
      ['', 'ka;q=1, ro;q=0.7, en;q=0.3', 'ro', 'Acest link nu mai funcționează', false],
      ['', 'zh-CN', 'zh-Hans', '此链接已失效', false],
      ['', 'ka', 'en', 'This link no longer works', false],
    ];
    for (const [query, accept, lang, title, rtl] of cases) {
      const res = await gone(query, accept);
      const html = await res.text();
      const what = `${query} ${accept ?? ''}`;
      assert.equal(res.status, 410, what);
      assert.equal(res.headers.get('Content-Language'), lang, what);
      assert.ok(html.includes(`<html lang="${lang}"${rtl ? ' dir="rtl"' : ''}>`), `${what}: ${html.slice(0, 120)}`);
      assert.ok(html.includes(`<h1>${title}</h1>`), `${what}: ${html}`);
    }
  });

  it('reads each dictionary from the assets without a failure (nothing logged)', async () => {
    const res = await gone('&l=sk');
    assert.ok((await res.text()).includes('<h1>Tento odkaz už nefunguje</h1>'));
    assert.equal(
      worker.logs.filter((l) => l.includes('page_strings_unavailable')).length,
      0,
      'every dictionary asked for was read from the assets',
    );
  });
});
