// A verification the partner's server started: `client-secret` and `prefill`. The prefill fills the form
// (the person may correct it), the request carries the client secret and never a page's customerRef, and
// opening the page again resumes: final → complete with its token, open → the same hosted flow again,
// canceled or expired → the calm VERIFICATION_CLOSED error.
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import { $, errorAnswer, linkAnswer, mockApi, mount, submit, type, check, until, waitState } from './helpers.js';
import type { KycOnboard } from '../../widget/index.js';
import { adultDateOfBirth } from '../support/dates.js';

const SECRET = 'vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ_secret_' + 'A'.repeat(43);
const DOB = adultDateOfBirth();

afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear();
});

/** console.warn while `fn` runs. */
async function warnings(fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void seen.push(args.map(String).join(' '));
  try {
    await fn();
  } finally {
    console.warn = original;
  }
  return seen;
}

describe('<kyc-onboard> client-secret and prefill', () => {
  it('prefill fills the form, the person corrects a value, the request carries the client secret and no customerRef', async () => {
    const calls = mockApi({
      result: () => HttpResponse.json({ checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId, status: 'created' }),
    });
    let el!: KycOnboard;
    const warned = await warnings(async () => {
      el = await mount(html`<kyc-onboard
        client-secret=${SECRET}
        customer-ref="page-ref"
        .prefill=${{ name: { givenName: 'Ada', familyName: 'Lovelace' }, dateOfBirth: DOB, phone: { code: '+44', number: '7700 900123' } }}
      ></kyc-onboard>`);
      await until(() => $(el, '#familyName').value === 'Lovelace', 'the prefill is shown');
      await until(() => calls.result.length === 1, 'the widget asked where the verification is');
      expect(el.state).to.equal('idle');
      expect($(el, '#givenName').value).to.equal('Ada');
      const [y, m, d] = DOB.split('-');
      expect([$(el, '#dobDay').value, $(el, '#dobMonth').value, $(el, '#dobYear').value]).to.deep.equal([
        String(Number(d)),
        String(Number(m)),
        y,
      ]);
      expect($(el, '#phoneCode').value).to.equal('+44');
      expect(el.hasAttribute('prefill')).to.equal(false);
      await type(el, 'givenName', 'Augusta Ada'); // the person corrects the prefill
      await check(el, 'consent');
      el.navigate = () => undefined;
      await submit(el);
      await until(() => calls.link.length === 1, 'a link was asked for');
    });
    expect(calls.result[0]!.body).to.deep.equal({ clientSecret: SECRET });
    const body = calls.link[0]!.body;
    expect(body.clientSecret).to.equal(SECRET);
    expect(body.customerRef).to.equal(undefined);
    expect(body.name.givenName).to.equal('Augusta Ada');
    expect(body.name.familyName).to.equal('Lovelace');
    expect(body.dateOfBirth).to.equal(DOB);
    expect(warned.some((w) => /customer-ref is ignored/.test(w))).to.equal(true);
  });

  it('resume, final: complete at once, with its token, without a form', async () => {
    const calls = mockApi({
      result: () =>
        HttpResponse.json({
          checkStatus: 'CHECKED_SUCCESS_CLEAR',
          verificationId: linkAnswer().verificationId,
          status: 'final',
          resultToken: 'h.c.s',
        }),
    });
    const el = await mount(html`<kyc-onboard client-secret=${SECRET}></kyc-onboard>`);
    await waitState(el, 'complete');
    expect(el.checkStatus).to.equal('CHECKED_SUCCESS_CLEAR');
    expect(calls.link.length).to.equal(0);
  });

  it('resume, open: the same hosted flow again (the link asked with the client secret alone)', async () => {
    let went = '';
    const calls = mockApi({
      result: () => HttpResponse.json({ checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId, status: 'open' }),
      link: () => HttpResponse.json(linkAnswer({ url: 'https://hosted.example/flow/same' })),
    });
    const el = await mount(html`<kyc-onboard client-secret=${SECRET}></kyc-onboard>`);
    el.navigate = (u) => void (went = u);
    await until(() => went !== '', 'sent to the hosted flow');
    expect(went).to.equal('https://hosted.example/flow/same');
    expect(calls.link[0]!.body).to.include({ clientSecret: SECRET });
    expect('name' in calls.link[0]!.body).to.equal(false);
  });

  it('resume, canceled or expired: the calm VERIFICATION_CLOSED error', async () => {
    mockApi({ result: () => errorAnswer(409, 'VERIFICATION_CLOSED', [{ issue: 'closed', issueLocation: 'clientSecret' }]) });
    const el = await mount(html`<kyc-onboard client-secret=${SECRET}></kyc-onboard>`);
    await waitState(el, 'error');
    expect(el.shadowRoot!.querySelector('[role=alert]')?.textContent).to.contain('ended');
  });
});
