/**
 * The adapter conformance suite inside workerd (adapters-workerd.test.ts
 * bundles this file): each adapter against its double, both in the worker's
 * runtime, one case per request. `?vendor=stripe-keeps-url` is a Stripe
 * adapter whose reference keeps the hosted URL: the suite must fail it here
 * too.
 */
import type { AdapterFixtureFactory } from './conformance';
import { adapterConformanceCases } from './conformance';
import { idvFixtures, stripeFixtures } from './fixtures';

const keepsUrl: AdapterFixtureFactory = {
  name: 'stripe (keeps the URL)',
  async create() {
    const f = await stripeFixtures.create();
    const a = f.adapter;
    return {
      ...f,
      adapter: {
        ...a,
        createLink: async (r) => {
          const link = await a.createLink(r);
          return { ...link, ref: { ...link.ref, url: link.url } as typeof link.ref };
        },
      },
    };
  },
};

const FACTORIES: Record<string, AdapterFixtureFactory> = { idv: idvFixtures, stripe: stripeFixtures, 'stripe-keeps-url': keepsUrl };

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const factory = FACTORIES[url.searchParams.get('vendor') ?? ''];
    if (!factory) return new Response('no such vendor', { status: 404 });
    const cases = adapterConformanceCases(factory);
    if (url.pathname === '/names') return Response.json(cases.map((c) => c.name));
    const c = cases.find((x) => x.name === url.searchParams.get('case'));
    if (!c) return new Response('no such case', { status: 404 });
    try {
      return Response.json(await c.run());
    } catch (err) {
      return Response.json({ status: 'failed', error: err instanceof Error ? err.message : String(err) });
    }
  },
};
