// Dictionaries other than English are chunks: an English page never waits for one (nor fetches one); another
// language renders English at once, then switches when its chunk has arrived. (Its own test file: a fresh page,
// so no dictionary is loaded yet.)
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { $, labelIs, mockApi, mount } from './helpers.js';

// The test runner's own modules fill the default buffer of 250 entries: make room to see the chunk's.
performance.setResourceTimingBufferSize(10_000);

const dictionaryRequests = () =>
  performance
    .getEntriesByType('resource')
    .filter((r) => /\/i18n\/(fr|de|es|ar)\.(ts|js)\b/.test(r.name))
    .map((r) => r.name);

afterEach(() => fixtureCleanup());

describe('<kyc-onboard> dictionaries', () => {
  it('an English page renders at once and fetches no dictionary', async () => {
    mockApi();
    const el = await mount(html`<kyc-onboard lang="en-AU"></kyc-onboard>`);
    expect($(el, 'label[for=familyName]').textContent).to.equal('Family name');
    expect(dictionaryRequests()).to.deep.equal([]);
  });

  it('a Spanish page shows English on the first render, then Spanish once its chunk is here (and only that one)', async () => {
    mockApi();
    const el = await mount(html`<kyc-onboard lang="es"></kyc-onboard>`);
    const first = $(el, 'label[for=familyName]').textContent;
    await labelIs(el, 'familyName', 'Apellido');
    expect(first).to.be.oneOf(['Family name', 'Apellido']); // English unless the chunk beat the first render
    expect($(el, '[part=base]').lang).to.equal('es');
    const fetched = dictionaryRequests();
    expect(fetched.length).to.equal(1);
    expect(fetched[0]).to.match(/\/i18n\/es\.(ts|js)/);
  });
});
