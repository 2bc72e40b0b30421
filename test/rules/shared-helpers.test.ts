/**
 * The helpers the worker, the sandbox and the demo share (rules/): base64url
 * against node's own encoder, and the HTML helper's escaping and page shell.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base64url, fromBase64url } from '../../rules/base64url';
import { esc, htmlPage } from '../../rules/html';

describe('base64url', () => {
  it('writes what node writes (no padding) and reads it back, for every length up to 64 bytes', () => {
    for (let n = 0; n <= 64; n++) {
      const bytes = crypto.getRandomValues(new Uint8Array(n));
      const text = base64url(bytes);
      assert.equal(text, Buffer.from(bytes).toString('base64url'));
      assert.deepEqual([...fromBase64url(text)], [...bytes]);
      assert.equal(base64url(bytes.buffer), text, 'an ArrayBuffer too');
    }
  });

  it('refuses characters outside the alphabet (padding, +, /, spaces)', () => {
    for (const bad of ['ab==', 'a+b', 'a/b', 'a b']) assert.throws(() => fromBase64url(bad), /not base64url/);
  });
});

describe('the HTML helper', () => {
  it('escapes the five characters that matter in text and attribute values', () => {
    assert.equal(esc(`<a href="x" title='y'>&</a>`), '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
    assert.equal(esc('plain, ünïcode'), 'plain, ünïcode');
  });

  it('builds the page shell: escaped title, the language and direction, one stylesheet, no script, not indexed', () => {
    const page = htmlPage({ lang: 'ar', rtl: true, title: 'A <b>title</b>', stylesheet: '/x/page.css', body: '<main>hi</main>\n' });
    assert.match(page, /^<!doctype html>\n<html lang="ar" dir="rtl">/);
    assert.match(page, /<title>A &#60;b&#62;title&#60;\/b&#62;<\/title>/);
    assert.match(page, /<link rel="stylesheet" href="\/x\/page.css">/);
    assert.match(page, /<meta name="robots" content="noindex">/);
    assert.match(page, /<body>\n<main>hi<\/main>\n<\/body>\n<\/html>\n$/);
    assert.doesNotMatch(page, /<script/);
    assert.doesNotMatch(htmlPage({ lang: 'en', title: 't', stylesheet: '/s.css', body: '' }), /dir=/);
  });
});
