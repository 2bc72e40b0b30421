// The widget.shown beacon (the operator console's first funnel step): one cookieless navigator.sendBeacon to
// {endpoint}/beacon per element per page view, with no body; none with `no-beacon`, none on a return from the
// hosted flow (that page view is the same person coming back, not a new one).
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { mount, until } from './helpers.js';

const startUrl = location.href;
let sent: { url: string; body: unknown }[] = [];
// Put back as it was, on the navigator it came from.
// eslint-disable-next-line @typescript-eslint/unbound-method
const original = navigator.sendBeacon;

beforeEach(() => {
  sent = [];
  Object.defineProperty(navigator, 'sendBeacon', {
    configurable: true,
    value: (url: string, body?: unknown) => {
      sent.push({ url, body });
      return true;
    },
  });
});
afterEach(() => {
  fixtureCleanup();
  history.replaceState(null, '', startUrl);
  Object.defineProperty(navigator, 'sendBeacon', { configurable: true, value: original });
});

/** The beacon of a second element, started after the one under test: whatever the first sends goes before it. */
const witnessed = { url: '/witness/api/beacon', body: undefined };
async function witness(): Promise<void> {
  await mount(html`<kyc-onboard endpoint="/witness/api"></kyc-onboard>`);
  await until(() => sent.some((s) => s.url === witnessed.url), "the witness element's beacon");
}

describe('widget.shown beacon', () => {
  it('sends one beacon per element, to the endpoint, with no body', async () => {
    const el = await mount(html`<kyc-onboard endpoint="https://kyc.example.com/api"></kyc-onboard>`);
    await until(() => sent.length > 0, 'a beacon');
    expect(sent).to.deep.equal([{ url: 'https://kyc.example.com/api/beacon', body: undefined }]);
    el.requestUpdate();
    await el.updateComplete;
    // Moved in the page (disconnected and connected again): still the same page view.
    const parent = el.parentElement!;
    parent.removeChild(el);
    parent.appendChild(el);
    // A second element's beacon goes after anything the first could still have sent (beacons are sent in the order
    // the elements start): no fixed wait for "nothing more".
    await mount(html`<kyc-onboard></kyc-onboard>`);
    await until(() => sent.length >= 2, 'a second beacon');
    expect(sent.length).to.equal(2);
    expect(sent[0]!.url).to.equal('https://kyc.example.com/api/beacon');
    expect(sent[1]!.url).to.equal('/api/beacon');
  });

  it('sends none with no-beacon', async () => {
    await mount(html`<kyc-onboard no-beacon></kyc-onboard>`);
    await witness();
    expect(sent).to.deep.equal([witnessed]);
  });

  it('sends none on a return from the hosted flow', async () => {
    history.replaceState(null, '', `${location.pathname}?kyc_return=success`);
    await mount(html`<kyc-onboard></kyc-onboard>`);
    history.replaceState(null, '', startUrl);
    await witness();
    expect(sent).to.deep.equal([witnessed]);
  });
});
