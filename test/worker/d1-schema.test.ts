/**
 * A deployment whose D1 was never migrated: the `/v1` list and `/ops` answer
 * `500 MISCONFIGURED` naming the migration to apply, with a log line that says
 * so, never a bare `INTERNAL_ERROR` (workerd through Miniflare, D1 left
 * empty). A D1 one migration behind still runs, and the failed index write
 * names the migration. And the table → migration map agrees with
 * migrations/*.sql.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LATEST_MIGRATION, missingMigration, TABLE_MIGRATIONS } from '../../worker/lib/d1-schema';
import { migrations } from '../../scripts/lib/d1-migrations.mjs';
import { adultDateOfBirth } from '../support/dates';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import { until } from '../support/wait';

const ROOT = join(import.meta.dirname, '../..');
const files = readdirSync(join(ROOT, 'migrations'))
  .filter((f) => /^\d{4}_.+\.sql$/.test(f))
  .sort();

describe('the D1 schema a deployment needs', () => {
  it('names, for each table, the migration that makes it, and the newest migration for the rest', () => {
    const made: Record<string, string> = {};
    for (const f of files) {
      for (const m of readFileSync(join(ROOT, 'migrations', f), 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/g)) made[m[1]!] = f;
    }
    assert.deepEqual(TABLE_MIGRATIONS, made);
    assert.equal(LATEST_MIGRATION, files.at(-1));
    assert.equal(missingMigration(new Error('D1_ERROR: no such table: verifications: SQLITE_ERROR')), '0001_verifications.sql');
    assert.equal(missingMigration(new Error('D1_ERROR: no such column: attempts: SQLITE_ERROR')), LATEST_MIGRATION);
    assert.equal(missingMigration(new Error('D1_ERROR: UNIQUE constraint failed')), undefined);
  });
});

describe('an unmigrated D1 in workerd', () => {
  let w: MiniflareWorker;
  before(async () => {
    w = await startMiniflareWorker({ migrate: false });
  });
  after(async () => w?.dispose());

  async function devKey(): Promise<string> {
    const { partners } = (await (await fetch(`${w.url}/sandbox/demo/server-keys`)).json()) as { partners: { serverKey: string }[] };
    return partners[0]!.serverKey;
  }

  it('the /v1 list is 500 MISCONFIGURED naming the migration, and the log says so', async () => {
    const res = await fetch(`${w.url}/v1/verifications`, { headers: { Authorization: `Bearer ${await devKey()}` } });
    const body = (await res.json()) as { errorCode: string; errorMsg: string };
    assert.equal(res.status, 500);
    assert.equal(body.errorCode, 'MISCONFIGURED');
    assert.match(body.errorMsg, /migrations\/0001_verifications\.sql/);
    assert.ok(
      w.logs.some((l) => l.includes('d1_not_migrated') && l.includes('migrations/0001_verifications.sql')),
      w.logs.slice(-10).join('\n'),
    );
  });

  it('/ops is 500 MISCONFIGURED naming the migration', async () => {
    const res = await fetch(`${w.url}/ops/api/funnel`);
    const body = (await res.json()) as { errorCode: string; errorMsg: string };
    assert.equal(res.status, 500, JSON.stringify(body));
    assert.equal(body.errorCode, 'MISCONFIGURED');
    assert.match(body.errorMsg, /migrations\/0002_ops\.sql/);
  });
});

describe('a D1 one migration behind the code, in workerd', () => {
  let w: MiniflareWorker;
  before(async () => {
    w = await startMiniflareWorker({ migrate: false });
    const db = await w.mf.getD1Database('DB');
    for (const m of migrations(ROOT).slice(0, -1)) await db.batch(m.statements.map((s) => db.prepare(s)));
  });
  after(async () => w?.dispose());

  it('a verification still starts; its index write fails with a log line naming the migration to apply', async () => {
    const res = await fetch(`${w.url}/api/onboarding-link`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: w.url },
      body: JSON.stringify({
        name: { givenName: 'Behind', familyName: 'Schema' },
        dateOfBirth: adultDateOfBirth(),
        phone: { code: '+61', number: '0412 345 678' },
        consent: true,
      }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const logged = () => w.logs.some((l) => l.includes('index_write_failed') && l.includes(`migrations/${LATEST_MIGRATION}`));
    await until(logged, { what: 'the index_write_failed log line', detail: () => w.logs.slice(-10).join('\n') });
    assert.ok(logged(), w.logs.slice(-10).join('\n'));
  });
});
