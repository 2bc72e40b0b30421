// A verification the partner's server started: `client-secret` and `prefill`. The prefill fills the form
// (the person may correct it), the request carries the client secret and never a page's customerRef, and
// opening the page again resumes: final → complete with its token, open → the same hosted flow again,
// canceled or expired → the calm VERIFICATION_CLOSED error.
import { expect, fixture, fixtureCleanup, html } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import { $, errorAnswer, linkAnswer, mockApi, mount, startMsw, submit, type, check, until, waitState } from './helpers.js';
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

describe('<kyc-onboard> a client secret the worker refuses', () => {
  it('tells the person to go back to the site and start again, and the console what the integrator got wrong', async () => {
    mockApi({
      result: () =>
        errorAnswer(401, 'CLIENT_SECRET_INVALID', [{ issue: 'is not a valid client secret for this site', issueLocation: 'clientSecret' }]),
    });
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.map(String).join(' '));
    let el!: KycOnboard;
    try {
      el = await mount(html`<kyc-onboard client-secret=${SECRET}></kyc-onboard>`);
      await waitState(el, 'error');
    } finally {
      console.error = original;
    }
    const alert = el.shadowRoot!.querySelector('[role=alert]')!;
    expect(alert.textContent).to.contain(`This link to verify is no longer valid: go back to ${location.hostname} and start again.`);
    expect(alert.querySelector('button'), 'starting again on this page would only be refused again').to.equal(null);
    expect(errors.some((e) => /client-secret/.test(e) && /POST \/v1\/verifications/.test(e))).to.equal(true);
    expect(errors.join(' ')).not.to.contain(SECRET);
  });
});

// `prefill` and `client-secret` take effect whenever they are set: a page (or a framework wrapper) that sets them a
// moment late must not get an empty form. Each moment: before the first render, right after it (the run chunk not
// loaded by this element), while it loads, and after it started; never over what the person typed.
describe('<kyc-onboard> prefill and client-secret set at any moment', () => {
  const PREFILL = { name: { givenName: 'Ada', familyName: 'Lovelace' }, dateOfBirth: DOB };
  /** The element as a page makes it: no focus in the form yet, so its run chunk is not asked for. */
  async function bare(): Promise<KycOnboard> {
    await startMsw();
    const el = await fixture<KycOnboard>(html`<kyc-onboard></kyc-onboard>`);
    el.navigate = () => undefined;
    el.pollIntervals = [0, 0, 0];
    return el;
  }

  it('before the first render: set in the same task as the element is added', async () => {
    mockApi();
    await startMsw();
    const el = document.createElement('kyc-onboard');
    document.body.append(el);
    try {
      el.prefill = PREFILL;
      await until(() => el.shadowRoot?.querySelector<HTMLInputElement>('#familyName')?.value === 'Lovelace', 'the prefill is shown');
    } finally {
      el.remove();
    }
  });

  it('right after the first render, before the lazily loaded code: the form is filled', async () => {
    mockApi();
    const el = await bare();
    await el.updateComplete;
    el.prefill = PREFILL;
    await until(() => $(el, '#familyName').value === 'Lovelace', 'the prefill is shown');
    expect($(el, '#givenName').value).to.equal('Ada');
    expect($(el, '#dobYear').value).to.equal(DOB.slice(0, 4));
  });

  it('while the lazily loaded code loads, and after it started: only what the person has not typed', async () => {
    mockApi();
    const el = await bare();
    // The first focus asks for the run chunk; the prefill arrives while it loads.
    $(el, '#givenName').focus();
    await type(el, 'givenName', 'Grace');
    el.prefill = PREFILL;
    await until(() => $(el, '#familyName').value === 'Lovelace', 'the prefill is shown');
    expect($(el, '#givenName').value).to.equal('Grace', 'what the person typed stays');
    // Later again (the run long started): a new prefill replaces what an earlier one filled, not what was typed.
    el.prefill = { name: { givenName: 'Augusta', familyName: 'Byron' } };
    await until(() => $(el, '#familyName').value === 'Byron', 'the new prefill is shown');
    expect($(el, '#givenName').value).to.equal('Grace');
  });

  it('client-secret right after the first render: the verification is resumed, and the request carries it', async () => {
    const calls = mockApi({
      result: () => HttpResponse.json({ checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId, status: 'created' }),
    });
    const el = await bare();
    await el.updateComplete;
    el.clientSecret = SECRET;
    await until(() => calls.result.length === 1, 'the widget asked where the verification is');
    expect(calls.result[0]!.body).to.deep.equal({ clientSecret: SECRET });
  });

  it('client-secret and prefill after the lazily loaded code started: both apply', async () => {
    const calls = mockApi({
      result: () => HttpResponse.json({ checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId, status: 'created' }),
    });
    const el = await mount(); // the run chunk loaded
    el.navigate = () => undefined;
    el.clientSecret = SECRET;
    el.prefill = { ...PREFILL, phone: { code: '+44', number: '7700 900123' } };
    await until(() => calls.result.length === 1, 'the widget asked where the verification is');
    await until(() => $(el, '#familyName').value === 'Lovelace', 'the prefill is shown');
    await check(el, 'consent');
    await submit(el);
    await until(() => calls.link.length === 1, 'a link was asked for');
    expect(calls.link[0]!.body.clientSecret).to.equal(SECRET);
    expect(calls.link[0]!.body.name.familyName).to.equal('Lovelace');
  });
});
