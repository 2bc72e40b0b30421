/**
 * The vendor in D1 and on /ops (docs/operations.md "Per vendor"):
 * migrations/0005 applies over a database of 0001–0004 and its rows from
 * before read as idv; the index writes each verification's vendor; the
 * console's summary counts links, finals, failovers, calls and webhook
 * deliveries per vendor, reads the operations' former names (the spec
 * vendor's words) as ours, and holds no personal data. D1 is Miniflare's
 * (workerd's SQLite), with no worker around it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { applyMigrations, migrations } from '../../scripts/lib/d1-migrations.mjs';
import { config } from '../../worker/config';
import { indexRow, listIndex, writeIndex } from '../../worker/verifications/verification-index';
import { startedWithLink } from '../../worker/verifications/lifecycle';
import { newVerificationId } from '../../worker/verifications/verification';
import { message, type OpsEvent } from '../../worker/ops/events';
import { record, writeDelivery } from '../../worker/ops/store';
import { funnel, summary } from '../../worker/ops/report';
import { vendorsTable } from '../../scripts/ops';
import { nodeEnv } from '../support/node-env';
import { nodeApp } from '../support/node-app';
import { useNodeTwins } from '../support/node-twins';

const OPS_TOKEN = 'ops-per-vendor-token-0123456789abcdef';

const ROOT = join(import.meta.dirname, '../..');
const NOW = Date.UTC(2026, 10, 28, 12);
const P = 'acme';

let mf: Miniflare;
let db: D1Database;

before(async () => {
  mf = new Miniflare({ modules: true, script: 'export default { fetch() { return new Response(null); } }', d1Databases: ['DB'] });
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- Miniflare's D1 is the worker's binding, typed by Miniflare's package
  db = await mf.getD1Database('DB');
});
after(() => mf.dispose());

const verification = (vendor: 'idv' | 'stripe', customerRef: string) =>
  startedWithLink(
    {
      id: newVerificationId(),
      partnerId: P,
      partnerOrigin: 'https://acme.example',
      customerRef,
      customerRefSource: 'page',
      vendor,
      entityId: `${vendor}-subject`,
      workerOrigin: 'https://kyc.acme.example',
      livemode: false,
      createdAt: NOW,
      holds: [],
    },
    new Date(NOW + 3_600_000).toISOString(),
    NOW,
    config(nodeEnv()).outcomes.lifecycle,
  );

describe('the vendor in D1 and on /ops', () => {
  it('migrations/0005 applies over 0001–0004: a row from before is idv, a new row carries its vendor', async () => {
    // A database as it was before 0005, with a row in it.
    const all = migrations(ROOT);
    assert.equal(all.at(-1)?.name, '0005_verification_vendor.sql');
    await db
      .prepare(
        'CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)',
      )
      .run();
    for (const m of all.slice(0, -1)) {
      await db.batch([...m.statements.map((s) => db.prepare(s)), db.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(m.name)]);
    }
    const old = verification('idv', 'old-ref');
    const { vendor: _vendor, ...before0005 } = indexRow(old, false, NOW);
    const cols = Object.keys(before0005);
    await db
      .prepare(`INSERT INTO verifications (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
      .bind(...Object.values(before0005))
      .run();

    await applyMigrations(db, ROOT);
    const stripe = verification('stripe', 'new-ref');
    await writeIndex(db, indexRow(stripe, false, NOW));
    const rows = await listIndex(db, P, false, { limit: 10 });
    assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.vendor])), { [old.id]: 'idv', [stripe.id]: 'stripe' });
    const cols0005 = (await db.prepare('PRAGMA table_info(verifications)').all<{ name: string }>()).results.map((c) => c.name);
    assert.ok(cols0005.includes('vendor'));

    // The console, per vendor.
    const events: OpsEvent[] = [
      // Counted before the rename and before events named their vendor: idv's, under our words.
      { type: 'vendor.call', operation: 'onboarding-url' as 'vendor-link', outcome: 'ok', ms: 120 },
      { type: 'link.created', channel: 'redirect' },
      { type: 'vendor.call', vendor: 'idv', operation: 'vendor-link', outcome: 'network', ms: 3 },
      { type: 'vendor.call', vendor: 'stripe', operation: 'vendor-link', outcome: 'ok', ms: 200 },
      { type: 'link.failover', from: 'idv', to: 'stripe', cause: 'network' },
      { type: 'link.created', channel: 'redirect', vendor: 'stripe' },
      { type: 'verification.final', checkStatus: 'verified', secondsSinceLink: 30, vendor: 'stripe' },
    ];
    await record(
      db,
      events.map((e) => message(P, e, NOW)),
    );
    await writeDelivery(db, {
      verificationId: stripe.id,
      type: 'verification.completed',
      partnerId: P,
      state: 'delivered',
      attempts: 1,
      at: NOW,
    });
    await writeDelivery(db, { verificationId: old.id, type: 'verification.expired', partnerId: P, state: 'dead', attempts: 5, at: NOW });

    const range = { from: NOW - 3_600_000, to: NOW + 3_600_000, partner: P };
    const s = await summary(db, range);
    const byVendor = Object.fromEntries(s.vendors.map((v) => [v.vendor, v]));
    assert.deepEqual(Object.keys(byVendor), ['idv', 'stripe']);
    assert.equal(byVendor.stripe!.linkCreated, 1);
    assert.equal(byVendor.stripe!.final, 1);
    assert.equal(byVendor.stripe!.failedOverTo, 1);
    assert.equal(byVendor.idv!.failedOverFrom, 1);
    assert.deepEqual(byVendor.idv!.failoverCauses, { network: 1 });
    assert.equal(byVendor.idv!.okShare, 0.5, "idv's calls: the one from before (ok), and the failed one");
    assert.equal(byVendor.stripe!.okShare, 1);
    assert.deepEqual(byVendor.stripe!.deliveries, { delivered: 1 });
    assert.deepEqual(byVendor.idv!.deliveries, { dead: 1 });
    // All vendors together: the former operation name read as ours.
    assert.deepEqual(
      s.vendor.map((l) => [l.operation, l.calls]),
      [['vendor-link', 3]],
    );
    const f = await funnel(db, range);
    assert.equal(f.partners[0]?.failovers, 1);
    // An event sent before events named their vendor is idv's.
    assert.deepEqual(f.partners[0]?.byVendor, { idv: { linkCreated: 1, final: 0 }, stripe: { linkCreated: 1, final: 1 } });
    // `npm run ops -- vendors`: the same per-vendor view in a terminal.
    const table = vendorsTable({ from: 'then', to: 'now', vendors: s.vendors }).split('\n');
    assert.match(table[1]!, /^vendor\s+links\s+final\s+failed over from\s+failed over to\s+calls ok$/);
    const idvAt = table.findIndex((l) => l.startsWith('idv '));
    const stripeAt = table.findIndex((l) => l.startsWith('stripe '));
    assert.match(table[idvAt]!, /^idv\s+1\s+0\s+1\s+0\s+50\.0%$/);
    assert.match(table[stripeAt]!, /^stripe\s+1\s+1\s+0\s+1\s+100\.0%$/);
    const idvLines = table.slice(idvAt + 1, stripeAt).join('\n');
    assert.match(idvLines, /passed over: network 1/);
    assert.match(idvLines, /vendor-link: 2 calls \((ok 1, network 1|network 1, ok 1)\)/);
    assert.match(idvLines, /webhooks: dead 1/);
    assert.match(table.slice(stripeAt + 1).join('\n'), /webhooks: delivered 1/);
    // Its source: GET /ops/api/vendors, what the console's summary says per vendor.
    const env = nodeEnv({ DB: db, OPS_TOKEN: OPS_TOKEN });
    useNodeTwins(env);
    const q = new URLSearchParams({ partner: P, from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() });
    const api = await nodeApp.request(
      `http://127.0.0.1:8787/ops/api/vendors?${q}`,
      { headers: { Authorization: `Bearer ${OPS_TOKEN}` } },
      env,
    );
    assert.equal(api.status, 200);
    const answer = (await api.json()) as { from: string; to: string; vendors: unknown };
    assert.deepEqual(answer, { from: q.get('from'), to: q.get('to'), vendors: JSON.parse(JSON.stringify(s.vendors)) });
    const unauthorised = await nodeApp.request(`http://127.0.0.1:8787/ops/api/vendors?${q}`, {}, env);
    assert.notEqual(unauthorised.status, 200);
    // Nothing personal: no customer reference, no vendor subject.
    const shown = JSON.stringify([s, f, table, answer]);
    for (const secret of ['old-ref', 'new-ref', 'idv-subject', 'stripe-subject']) assert.ok(!shown.includes(secret), secret);
  });
});
