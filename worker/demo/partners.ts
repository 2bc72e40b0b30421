/**
 * The two demo partners of docs/partners.md, as data with no imports, so the sales
 * demo can show the same names the worker uses: the worker's own origin seen
 * as 127.0.0.1 is partner A, seen as localhost partner B (same scheme and
 * port). Their child accounts are the sandbox's default children.
 */
export const DEMO_PARTNERS = [
  { id: 'demo-a', host: '127.0.0.1', displayName: 'Harbourline Bank', childId: 'demo-child-a', apiKey: 'sandbox-key-a' },
  { id: 'demo-b', host: 'localhost', displayName: 'Kestrel Credit Union', childId: 'demo-child-b', apiKey: 'sandbox-key-b' },
] as const;

export type DemoPartner = (typeof DEMO_PARTNERS)[number];

/** The demo partner a page on `hostname` is (partner A for any other host: a deployed demo). */
export function demoPartnerForHost(hostname: string): DemoPartner {
  return DEMO_PARTNERS.find((d) => d.host === hostname) ?? DEMO_PARTNERS[0];
}
