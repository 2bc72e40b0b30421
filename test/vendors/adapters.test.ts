/**
 * The adapter conformance suite (conformance.ts) run by node:test for every
 * adapter against its double, and against fakes that each break one rule:
 * the suite must fail them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { VendorAdapter } from '../../worker/vendors/adapter';
import { adapterConformanceCases, type AdapterFixtureFactory } from './conformance';
import { idvFixtures, stripeFixtures } from './fixtures';

for (const factory of [idvFixtures, stripeFixtures]) {
  describe(`adapter conformance: ${factory.name}`, () => {
    for (const c of adapterConformanceCases(factory)) {
      it(c.name, async (t) => {
        const result = await c.run();
        if (result.status === 'skipped') t.skip(result.reason);
      });
    }
  });
}

/** `factory` with its adapter replaced by `breakIt(adapter)`. */
function broken(factory: AdapterFixtureFactory, breakIt: (a: VendorAdapter) => VendorAdapter): AdapterFixtureFactory {
  return {
    name: `${factory.name} (broken)`,
    async create() {
      const f = await factory.create();
      return { ...f, adapter: breakIt(f.adapter) };
    },
  };
}

async function caseFails(factory: AdapterFixtureFactory, name: string): Promise<void> {
  const c = adapterConformanceCases(factory).find((x) => x.name === name);
  assert.ok(c, `no case named ${name}`);
  await assert.rejects(() => c.run(), /Conformance assertion failed|expected/);
}

describe('the suite fails an adapter that breaks a rule', () => {
  it('one that retries createLink', async () => {
    await caseFails(
      broken(idvFixtures, (a) => ({
        ...a,
        createLink: async (r) => {
          try {
            return await a.createLink(r);
          } catch {
            return a.createLink(r);
          }
        },
      })),
      'createLink is never retried',
    );
  });

  it("one that credits the previous attempt's answer", async () => {
    await caseFails(
      broken(idvFixtures, (a) => ({ ...a, latestResult: (ref) => a.latestResult(ref) })),
      "a next attempt never credits the previous attempt's answer",
    );
  });

  it('one that calls the vendor before saying it cannot', async () => {
    await caseFails(
      broken(stripeFixtures, (a) => ({
        ...a,
        createLink: async (r) => {
          await a.health().catch(() => undefined);
          return a.createLink(r);
        },
      })),
      'an unsupported capability throws before any I/O',
    );
  });

  it('one that says livemode on the double', async () => {
    await caseFails(
      broken(stripeFixtures, (a) => ({ ...a, livemode: true })),
      'livemode is false on the double',
    );
  });

  it('one that accepts any signature', async () => {
    await caseFails(
      broken(stripeFixtures, (a) => ({
        ...a,
        verifyWebhook: async () => ({ id: 'evt', type: 'identity.verification_session.verified', subject: 'vs_x' }),
      })),
      'webhook signatures: valid, tampered, replayed, unknown',
    );
  });

  it('one whose reference keeps the hosted URL', async () => {
    await caseFails(
      broken(stripeFixtures, (a) => ({
        ...a,
        createLink: async (r) => {
          const link = await a.createLink(r);
          return { ...link, ref: { ...link.ref, url: link.url } as typeof link.ref };
        },
      })),
      'openUrl: each open asks the vendor for the URL, which no reference keeps; none once the attempt ended',
    );
  });

  it('one that keeps the first URL instead of asking when the person opens it', async () => {
    const seen = new Map<string, string | undefined>();
    await caseFails(
      broken(stripeFixtures, (a) => ({
        ...a,
        openUrl: async (ref) => {
          if (!seen.has(ref.subject)) seen.set(ref.subject, await a.openUrl!(ref));
          return seen.get(ref.subject);
        },
      })),
      'openUrl: each open asks the vendor for the URL, which no reference keeps; none once the attempt ended',
    );
  });

  it('one whose cancel asks nobody', async () => {
    await caseFails(
      broken(stripeFixtures, (a) => ({ ...a, cancel: async () => {} })),
      'cancel stops the attempt at the vendor; an answer about another subject is a mismatch',
    );
  });

  it('one whose redact swallows what the vendor answered', async () => {
    await caseFails(
      broken(stripeFixtures, (a) => ({ ...a, redact: (ref) => a.redact!(ref).catch(() => undefined) })),
      'redact erases at the vendor, twice as once; an answer about another subject is a mismatch',
    );
  });
});
