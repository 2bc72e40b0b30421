/**
 * `npm start` takes every setting of docs/configuration.md's table from the
 * environment (scripts/lib/settings.mjs, one list): the list and the table
 * name the same settings, each is one the worker or the sandbox reads, and
 * each given value reaches the env file wrangler gets.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/wrangler';
import { SETTING_NAMES, settingsFromEnvironment } from '../../scripts/lib/settings.mjs';

/** The names in the first column of the configuration table. */
function tableNames(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
  const table = doc.slice(doc.indexOf('| name | kind |'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
  assert.ok(rows.length > 10, 'the configuration table was found');
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));
}

/** Every .ts file's text under a folder. */
function sources(dir: string): string {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(ROOT, dir, f), 'utf8'))
    .join('\n');
}

describe('npm start: settings from the environment', () => {
  it("takes exactly the configuration table's settings", () => {
    assert.deepEqual([...SETTING_NAMES].sort(), [...new Set(tableNames())].sort());
  });

  it('lists only settings the worker or the sandbox reads', () => {
    const code = sources('worker') + sources('sandbox');
    const unread = SETTING_NAMES.filter((n) => !new RegExp(`\\b${n}\\b`).test(code));
    assert.deepEqual(unread, []);
  });

  it('hands every given setting to wrangler, and says which it cannot', () => {
    const env = Object.fromEntries(SETTING_NAMES.map((n, i) => [n, `value-${i}`]));
    const { applied, lines, unusable } = settingsFromEnvironment({ ...env, UNRELATED: 'x' });
    assert.deepEqual(applied, SETTING_NAMES);
    assert.deepEqual(unusable, []);
    for (const [i, n] of SETTING_NAMES.entries()) assert.ok(lines.includes(`${n}='value-${i}'`), n);
    const quoted = settingsFromEnvironment({ LIMIT_OPEN_PER_IP: "it's", PARTNER_SERVER_KEYS: 'kyc_sk_test_x' });
    assert.deepEqual(quoted.unusable, ['LIMIT_OPEN_PER_IP']);
    assert.deepEqual(quoted.lines, ["PARTNER_SERVER_KEYS='kyc_sk_test_x'"]);
  });
});
