/**
 * docs/troubleshooting.md lists every error code the widget can show: the
 * ones the widget makes itself and every code of the worker's errors that a
 * browser's request can get. A code added on either side without its line
 * there fails here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/wrangler';

/** Codes only the partner's server (`/v1`), the operator console or the demo's receiver answer: never a widget's request. */
const SERVER_ONLY = new Set(['UNAUTHENTICATED', 'NOT_FINAL', 'REDACTED', 'NO_EVENT', 'VERIFICATION_OPEN', 'SIGNATURE_INVALID']);

function widgetCodes(): string[] {
  const dir = join(ROOT, 'widget');
  const text = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.startsWith('i18n'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
  return [...text.matchAll(/(?:failure\(|errorCode: )'([A-Z_]+)'/g)].map((m) => m[1]!);
}

function workerCodes(): string[] {
  const errors = readFileSync(join(ROOT, 'worker/lib/errors.ts'), 'utf8');
  const union = /export type ErrorCode =([^;]+);/.exec(errors)![1]!;
  return [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]!);
}

describe('docs/troubleshooting.md', () => {
  it('lists every error code the widget can show', () => {
    const doc = readFileSync(join(ROOT, 'docs/troubleshooting.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Error codes the widget can show'));
    assert.ok(section.length > 100, 'the section exists');
    const codes = [...new Set([...widgetCodes(), 'BAD_ANSWER', ...workerCodes().filter((c) => !SERVER_ONLY.has(c))])];
    assert.ok(codes.includes('CLIENT_SECRET_INVALID') && codes.includes('NETWORK_ERROR'));
    const missing = codes.filter((c) => !section.includes(`\`${c}\``));
    assert.deepEqual(missing, []);
  });
});
