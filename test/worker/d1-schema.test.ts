/**
 * A deployment whose D1 was never migrated fails closed: `ruok`, the link,
 * `/v1` create and list, and `/ops` answer `500 MISCONFIGURED` naming the
 * migration to apply, with a log line that says so, never a bare
 * `INTERNAL_ERROR` and never a verification the index will not list
 * (workerd through Miniflare, D1 left empty); once migrated, the same worker
 * serves. A D1 one migration behind is refused the same way. And the table →
 * migration map agrees with migrations/*.sql.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LATEST_MIGRATION, missingMigration, TABLE_MIGRATIONS } from '../../worker/lib/d1-schema';
import { applyMigrations, migrations } from '../../scripts/lib/d1-migrations.mjs';
import { adultDateOfBirth } from '../support/dates';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';

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

interface ErrorObject {
  errorCode: string;
  errorMsg: string;
  issues: { issue: string; issueLocation: string }[];
}

const personBody = (familyName: string) =>
  JSON.stringify({
    name: { givenName: 'Schema', familyName },
    dateOfBirth: adultDateOfBirth(),
    phone: { code: '+61', number: '0412 345 678' },
    consent: true,
  });

/** 500 MISCONFIGURED with an issue on DB naming `migration`. */
async function assertNotMigrated(res: Response, migration: string, what: string): Promise<void> {
  const body = (await res.json()) as ErrorObject;
  assert.equal(res.status, 500, `${what}: ${JSON.stringify(body)}`);
  assert.equal(body.errorCode, 'MISCONFIGURED', what);
  assert.ok(
    body.issues.some((i) => i.issueLocation === 'DB' && i.issue.includes(`migrations/${migration}`)),
    `${what} names migrations/${migration}: ${JSON.stringify(body.issues)}`,
  );
}

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

  it('ruok, the link, /v1 create and the /v1 list are 500 MISCONFIGURED naming the migration, and the log says so', async () => {
    const key = await devKey();
    await assertNotMigrated(await fetch(`${w.url}/api/ruok`), '0001_verifications.sql', 'ruok');
    await assertNotMigrated(
      await fetch(`${w.url}/api/onboarding-link`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: w.url },
        body: personBody('Unmigrated'),
      }),
      '0001_verifications.sql',
      'the link',
    );
    await assertNotMigrated(
      await fetch(`${w.url}/v1/verifications`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ customerRef: 'acct-unmigrated' }),
      }),
      '0001_verifications.sql',
      '/v1 create',
    );
    await assertNotMigrated(
      await fetch(`${w.url}/v1/verifications`, { headers: { Authorization: `Bearer ${key}` } }),
      '0001_verifications.sql',
      'the /v1 list',
    );
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

  it('once migrated, the same worker serves: the link made, /v1 create 201 and listed', async () => {
    await applyMigrations(await w.mf.getD1Database('DB'), ROOT);
    const key = await devKey();
    const link = await fetch(`${w.url}/api/onboarding-link`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: w.url },
      body: personBody('Migrated'),
    });
    assert.equal(link.status, 200, await link.clone().text());
    const created = await fetch(`${w.url}/v1/verifications`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ customerRef: 'acct-migrated' }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const { verificationId } = (await created.json()) as { verificationId: string };
    const list = (await (await fetch(`${w.url}/v1/verifications`, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
      data: { verificationId: string }[];
    };
    assert.ok(
      list.data.some((r) => r.verificationId === verificationId),
      JSON.stringify(list),
    );
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

  it('no verification starts: the link is 500 MISCONFIGURED naming the migration to apply', async () => {
    const res = await fetch(`${w.url}/api/onboarding-link`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: w.url },
      body: personBody('Behind'),
    });
    await assertNotMigrated(res, LATEST_MIGRATION, 'the link');
  });
});
