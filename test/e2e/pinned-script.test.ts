/**
 * The pinned script a security team accepts: the README's
 * versioned URL and SRI hash (written there from the build) match what the
 * worker serves; the file is immutable, with the CORS and CORP headers a
 * cross-origin module needs; a partner page that loads it with `integrity`
 * gets a working widget, and with a wrong hash the browser refuses it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/wrangler';
import { assertStopped, freePort, openBrowser, startStack, staticServer, waitForState } from './helpers';

const sri = (buf: ArrayBuffer) => 'sha384-' + createHash('sha384').update(Buffer.from(buf)).digest('base64');

/** The pinned script tag as the README prints it. */
function readmePin(): { path: string; integrity: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const m = /src="https:\/\/kyc\.example\.com(\/widget@[^"]+\.js)"\s+integrity="(sha384-[^"]+)"/.exec(readme);
  assert.ok(m, 'the README prints a pinned script tag');
  return { path: m[1]!, integrity: m[2]! };
}

const page = (src: string, integrity: string, endpoint: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pinned partner</title>
<script type="module" src="${src}" integrity="${integrity}" crossorigin="anonymous"></script></head>
<body><h1>Pinned</h1><kyc-onboard endpoint="${endpoint}"></kyc-onboard></body></html>`;

describe('the pinned script', () => {
  it(
    "the README's pinned script is what the worker serves, immutable, and the browser enforces its integrity",
    { timeout: 90_000 },
    async () => {
      const pin = readmePin();
      const version = (JSON.parse(readFileSync(join(ROOT, 'packages/kyc-onboard/package.json'), 'utf8')) as { version: string }).version;
      assert.match(pin.path, new RegExp(`^/widget@${version.replace(/\./g, '\\.')}-[0-9a-f]{12}\\.js$`), 'version plus content hash');
      const partnerPort = await freePort();
      const partnerOrigin = `http://127.0.0.1:${partnerPort}`;
      const worker = await startStack({ ALLOWED_ORIGINS: partnerOrigin });
      const site = await staticServer(
        {
          '/': page(`${worker.url}${pin.path}`, pin.integrity, `${worker.url}/api`),
          '/tampered': page(`${worker.url}${pin.path}`, 'sha384-' + Buffer.alloc(48).toString('base64'), `${worker.url}/api`),
        },
        partnerPort,
      );
      const browser = await openBrowser();
      try {
        const res = await fetch(`${worker.url}${pin.path}`, { headers: { Origin: partnerOrigin } });
        assert.equal(res.status, 200);
        assert.equal(sri(await res.arrayBuffer()), pin.integrity, "the served bytes match the README's hash");
        assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/);
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
        assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
        // The same bytes as /widget.js, and every chunk it may load is served as the build recorded it.
        assert.equal(sri(await (await fetch(`${worker.url}/widget.js`)).arrayBuffer()), pin.integrity);
        const record = (await (await fetch(`${worker.url}/widget-integrity.json`)).json()) as {
          path: string;
          integrity: string;
          chunks: { path: string; integrity: string }[];
        };
        assert.deepEqual({ path: record.path, integrity: record.integrity }, pin);
        for (const c of record.chunks) {
          const chunk = await fetch(`${worker.url}${c.path}`);
          assert.equal(sri(await chunk.arrayBuffer()), c.integrity, c.path);
          assert.match(chunk.headers.get('cache-control') ?? '', /immutable/);
        }

        const { page: p } = browser;
        await p.goto(`${site.url}/`);
        await waitForState(p, 'idle').catch((e: unknown) =>
          assert.fail(`${e instanceof Error ? e.message : String(e)}\n${browser.problems.join('\n')}`),
        );
        assert.equal(await p.evaluate(() => Boolean(customElements.get('kyc-onboard'))), true);

        browser.problems.length = 0;
        // goto waits for `load`; a module script runs (or is refused) before DOMContentLoaded.
        await p.goto(`${site.url}/tampered`);
        assert.ok(
          browser.problems.some((m) => /integrity/i.test(m)),
          `the browser reports the integrity failure: ${browser.problems.join(' | ')}`,
        );
        assert.equal(
          await p.evaluate(() => Boolean(customElements.get('kyc-onboard'))),
          false,
          'a wrong integrity: the browser does not run the script',
        );
      } finally {
        await browser.close();
        await site.stop();
        await worker.stop();
      }
      await assertStopped(worker.url);
    },
  );
});
