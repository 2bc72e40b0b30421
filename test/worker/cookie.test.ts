/**
 * worker/lib/cookie.ts writes and reads the handoff cookie exactly as
 * hono/cookie did (it replaced it for bundle size).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import { getCookie as honoGet, setCookie as honoSet } from 'hono/cookie';
import { getCookie, setCookie } from '../../worker/lib/cookie';

const NAME = 'kyc_claim_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ';

describe('the handoff cookie', () => {
  it('is serialised as hono/cookie serialised it', async () => {
    for (const secure of [true, false]) {
      const opts = {
        path: '/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ/return',
        httpOnly: true,
        sameSite: 'Strict',
        secure,
        maxAge: 86400,
      } as const;
      const app = new Hono()
        .get('/ours', (c) => (setCookie(c, NAME, 'AbC-_123', opts), c.text('')))
        .get('/hono', (c) => (honoSet(c, NAME, 'AbC-_123', opts), c.text('')));
      assert.equal((await app.request('/ours')).headers.get('Set-Cookie'), (await app.request('/hono')).headers.get('Set-Cookie'));
    }
  });

  it('is read as hono/cookie read it', async () => {
    const app = new Hono()
      .get('/ours', (c) => c.json({ v: getCookie(c, NAME) ?? null }))
      .get('/hono', (c) => c.json({ v: honoGet(c, NAME) ?? null }));
    for (const header of [
      undefined,
      '',
      `${NAME}=abc`,
      `a=1; ${NAME}=abc; b=2`,
      `${NAME}="quoted"`,
      `${NAME}=bad,value; ${NAME}=good`,
      `${NAME}=first; ${NAME}=second`,
      `${NAME}=%41%zz`,
      `other_${NAME}=x`,
      `  ${NAME}  =  spaced  `,
    ]) {
      const init = header === undefined ? {} : { headers: { Cookie: header } };
      const ours = await (await app.request('/ours', init)).json();
      assert.deepEqual(ours, await (await app.request('/hono', init)).json(), String(header));
    }
  });
});
