/**
 * The failover rule alone (worker/vendors/failover.ts), with fake adapters
 * counting their calls: which faults fail over (and the cause counted),
 * which do not, a next vendor the deployment cannot reach, a subject of the
 * first vendor's, and the known-down window on the test's clock.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Capabilities, VendorAdapter, VendorId } from '../../worker/vendors/adapter';
import { VendorError, type VendorFault } from '../../worker/vendors/errors';
import { linkWithFailover, type FailoverAsk } from '../../worker/vendors/failover';
import { resetVendorHealth, VENDOR_DOWN_MS } from '../../worker/vendors/health';

const CAPS: Capabilities = {
  sms: false,
  entitySearch: false,
  entityReuse: false,
  cancelAtVendor: false,
  redactAtVendor: false,
  vendorWebhooks: false,
  person: false,
};

/** An adapter that makes links, or fails with `fault` while it is set; `calls` counts its link calls. */
function fake(id: VendorId) {
  const state = { calls: 0, fault: undefined as VendorFault | undefined };
  const adapter = {
    id,
    livemode: false,
    capabilities: CAPS,
    createLink: async () => {
      state.calls++;
      if (state.fault) throw new VendorError(state.fault);
      return {
        ref: { vendor: id, subject: `${id}-subject`, linkedAt: 0 },
        url: `https://${id}.example/flow`,
        expiresAt: 1,
        smsSent: false,
      };
    },
  } as unknown as VendorAdapter;
  return { adapter, state };
}

let t = 1_000_000;
function ask(adapters: Partial<Record<VendorId, VendorAdapter>>, more: Partial<FailoverAsk> = {}): FailoverAsk {
  return {
    vendors: ['idv', 'stripe'],
    failover: 'before_start',
    adapter: (v) => {
      const a = adapters[v];
      if (!a) throw new VendorError({ kind: 'status', status: 403 }); // as adapterFor: no settings for it
      return a;
    },
    settings: {},
    now: () => t,
    ask: { verificationId: 'vrf_x', requestId: 'r', returnTo: { success: 'https://p.example/', error: 'https://p.example/' } },
    ...more,
  };
}

afterEach(() => resetVendorHealth());

describe('the failover rule', () => {
  for (const [fault, cause] of [
    [{ kind: 'timeout' }, 'timeout'],
    [{ kind: 'unreachable' }, 'network'],
    [{ kind: 'bad-answer', status: 200 }, 'error'],
    [{ kind: 'status', status: 503 }, 'error'],
    [{ kind: 'status', status: 429 }, 'busy'],
  ] as const) {
    it(`${JSON.stringify(fault)} fails over (${cause}), once`, async () => {
      const idv = fake('idv');
      const stripe = fake('stripe');
      idv.state.fault = fault;
      let told = 0;
      const made = await linkWithFailover(ask({ idv: idv.adapter, stripe: stripe.adapter }, { onFailover: () => told++ }));
      assert.equal(made.vendor, 'stripe');
      assert.deepEqual(made.failover, { from: 'idv', cause });
      assert.deepEqual([idv.state.calls, stripe.state.calls, told], [1, 1, 1]);
    });
  }

  for (const status of [400, 401, 403, 404, 422]) {
    it(`a ${status} does not fail over`, async () => {
      const idv = fake('idv');
      const stripe = fake('stripe');
      idv.state.fault = { kind: 'status', status };
      await assert.rejects(linkWithFailover(ask({ idv: idv.adapter, stripe: stripe.adapter })), VendorError);
      assert.equal(stripe.state.calls, 0);
    });
  }

  it('the next vendor failing too is its own error, and no third try', async () => {
    const idv = fake('idv');
    const stripe = fake('stripe');
    idv.state.fault = { kind: 'unreachable' };
    stripe.state.fault = { kind: 'status', status: 502 };
    await assert.rejects(linkWithFailover(ask({ idv: idv.adapter, stripe: stripe.adapter })), (e: VendorError) => e.status === 502);
    assert.deepEqual([idv.state.calls, stripe.state.calls], [1, 1]);
  });

  it('a next vendor the deployment cannot reach: the first vendor still makes the link, its fault is answered', async () => {
    const idv = fake('idv');
    assert.equal((await linkWithFailover(ask({ idv: idv.adapter }))).vendor, 'idv');
    idv.state.fault = { kind: 'unreachable' };
    await assert.rejects(linkWithFailover(ask({ idv: idv.adapter })), (e: VendorError) => e.fault.kind === 'unreachable');
  });

  it("a link for the first vendor's subject, or with failover off, never moves", async () => {
    const idv = fake('idv');
    const stripe = fake('stripe');
    idv.state.fault = { kind: 'unreachable' };
    const a = ask({ idv: idv.adapter, stripe: stripe.adapter });
    await assert.rejects(linkWithFailover({ ...a, ask: { ...a.ask, subject: 'idv-entity' } }), VendorError);
    await assert.rejects(linkWithFailover({ ...a, failover: 'off' }), VendorError);
    assert.equal(stripe.state.calls, 0);
  });

  it('known down: not asked within the window, asked again after it; both down: the first is asked', async () => {
    const idv = fake('idv');
    const stripe = fake('stripe');
    idv.state.fault = { kind: 'timeout' };
    const adapters = { idv: idv.adapter, stripe: stripe.adapter };
    await linkWithFailover(ask(adapters));
    t += VENDOR_DOWN_MS - 1;
    const skipped = await linkWithFailover(ask(adapters));
    assert.deepEqual(skipped.failover, { from: 'idv', cause: 'known-down' });
    assert.equal(idv.state.calls, 1, 'not asked while known down');
    t += 1;
    await linkWithFailover(ask(adapters));
    assert.equal(idv.state.calls, 2, 'asked again once the window passed');
    // Both known down now (stripe fails too): the first vendor is asked, not skipped.
    stripe.state.fault = { kind: 'unreachable' };
    t += VENDOR_DOWN_MS;
    await assert.rejects(linkWithFailover(ask(adapters)));
    const idvCalls = (): number => idv.state.calls; // read afresh (assert.equal narrows the field)
    const before = idvCalls();
    await assert.rejects(linkWithFailover(ask(adapters)));
    assert.equal(idvCalls(), before + 1);
  });
});
