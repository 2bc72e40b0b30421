// The second attempt costs no new typing: before the trip to the hosted flow in this tab the widget keeps the form's
// values in sessionStorage encrypted (AES-GCM, a fresh key per submission), sends the key to the worker with the link
// request, and, back on a page loaded afresh, opens them with the key the worker gives back to the session. Nothing
// readable is stored; no key, or a garbled copy, is an empty form and never an error.
import { expect, fixtureCleanup } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import type { ResultAnswer } from '../../worker/contract.js';
import type { KycOnboard } from '../../widget/index.js';
import { $, fillValid, linkAnswer, maybe, mockApi, mount, submit, text, until, waitState } from './helpers.js';

const startUrl = location.href;
afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear();
  history.replaceState(null, '', startUrl);
});

const FORM = 'kyc-onboard:form';
const vid = linkAnswer().verificationId;
const person = { givenName: 'Philippa', familyName: 'Quartermaine', dateOfBirth: '1987-11-23', phoneNumber: '0412 345 678' };
const requiresInput = (formKey?: string): ResultAnswer => ({
  status: 'requires_input',
  lastAttempt: { checkStatus: 'NO_MATCH' },
  checkStatus: 'CHECKING',
  verificationId: vid,
  ...(formKey ? { formKey } : {}),
});

/** Everything this tab's sessionStorage holds, as one string. */
const stored = () =>
  Object.keys(sessionStorage)
    .map((k) => `${k}=${sessionStorage.getItem(k)}`)
    .join('\n');

/** Submit `person` on the hosted-flow path; the link request's form key (the page "navigates" nowhere). */
async function leaveForHostedFlow(): Promise<string> {
  const calls = mockApi();
  const el = await mount();
  el.navigate = () => {};
  el.pollIntervals = [60_000];
  await fillValid(el, person);
  await submit(el);
  await waitState(el, 'redirecting');
  const formKey = calls.link[0]!.body.formKey!;
  fixtureCleanup(); // the page is left; it loads afresh on the way back
  return formKey;
}

const values = (el: KycOnboard) =>
  ['givenName', 'familyName', 'dobDay', 'dobMonth', 'dobYear', 'phoneNumber'].map((id) => $(el, `#${id}`).value);
const filled = ['Philippa', 'Quartermaine', '23', '11', '1987', '0412 345 678'];
const empty = ['', '', '', '', '', ''];

/** Back from the hosted flow (`?kyc_return=error`) on a page loaded afresh, the worker answering `answer`. */
async function comeBack(answer: ResultAnswer): Promise<KycOnboard> {
  mockApi({ result: () => HttpResponse.json(answer) });
  history.replaceState(null, '', `${startUrl.split('?')[0]}?kyc_return=error`);
  const el = await mount();
  await until(() => text(el).includes('Check your details and try again'), `what to check (${text(el)})`);
  await waitState(el, 'idle');
  return el;
}

describe('<kyc-onboard> keeps the form encrypted across the hosted flow', () => {
  it('stores only ciphertext: no name, birth date or number in clear, and a 32-byte key goes to the worker', async () => {
    const formKey = await leaveForHostedFlow();
    expect(formKey).to.match(/^[A-Za-z0-9_-]{43}$/);
    const all = stored();
    expect(all).to.contain(FORM);
    for (const clear of ['Philippa', 'Quartermaine', '1987', '0412', '345 678', '412345678', formKey])
      expect(all, `sessionStorage holds ${clear}`).not.to.contain(clear);
    expect(JSON.parse(sessionStorage.getItem(FORM)!)).to.have.keys(['iv', 'data']);
  });

  it('requires_input on a page loaded afresh: the form as it was (consent kept: the same verification), the copy then forgotten', async () => {
    const formKey = await leaveForHostedFlow();
    const el = await comeBack(requiresInput(formKey));
    await until(() => $(el, '#familyName').value === 'Quartermaine', `the form filled (${values(el).join('|')})`);
    expect(values(el)).to.deep.equal(filled);
    // The next attempt is the same verification for the same purpose: the consent given for it stays given.
    await until(() => $(el, '#consent').checked, 'consent still ticked');
    expect($(el, '#consent').checked).to.equal(true);
    expect(sessionStorage.getItem(FORM)).to.equal(null);
  });

  it('no key from the worker: an empty form, no error', async () => {
    await leaveForHostedFlow();
    const el = await comeBack(requiresInput());
    await el.updateComplete;
    expect(values(el)).to.deep.equal(empty);
    expect(el.state).to.equal('idle');
  });

  it('a garbled copy, or another key: an empty form, no error', async () => {
    const formKey = await leaveForHostedFlow();
    const kept = JSON.parse(sessionStorage.getItem(FORM)!) as { iv: string; data: string };
    const flipped = (kept.data[0] === 'A' ? 'B' : 'A') + kept.data.slice(1);
    sessionStorage.setItem(FORM, JSON.stringify({ ...kept, data: flipped }));
    let el = await comeBack(requiresInput(formKey));
    await until(() => sessionStorage.getItem(FORM) === null, 'the garbled copy dropped');
    expect(values(el)).to.deep.equal(empty);
    expect(el.state).to.equal('idle');
    fixtureCleanup();

    await leaveForHostedFlow();
    el = await comeBack(requiresInput('A'.repeat(43)));
    await until(() => sessionStorage.getItem(FORM) === null, 'the copy dropped');
    expect(values(el)).to.deep.equal(empty);
    expect(el.state).to.equal('idle');
  });

  it('Back without a result, then "Change my details": the form as it was', async () => {
    const formKey = await leaveForHostedFlow();
    const calls = mockApi({ result: () => HttpResponse.json({ checkStatus: 'CHECKING', verificationId: vid, formKey }) });
    const el = await mount();
    await until(() => text(el).includes('Change my details'), `the ways on (${text(el)})`);
    [...el.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Change my details')!.click();
    await until(() => (maybe(el, '#familyName') as HTMLInputElement | null)?.value === 'Quartermaine', 'the form filled');
    expect(values(el)).to.deep.equal(filled);
    expect(calls.result.every((c) => c.body.session === 'sess-123')).to.equal(true);
  });

  it('reaching `complete` forgets the copy', async () => {
    sessionStorage.setItem(FORM, JSON.stringify({ iv: 'x', data: 'y' }));
    mockApi({ result: () => HttpResponse.json({ checkStatus: 'CHECKED_SUCCESS_CLEAR', verificationId: vid, resultToken: 'h.c.s' }) });
    history.replaceState(null, '', `${startUrl.split('?')[0]}?kyc_return=success`);
    sessionStorage.setItem('kyc-onboard:session', JSON.stringify({ session: 'done' }));
    const el = await mount();
    await waitState(el, 'complete');
    expect(sessionStorage.getItem(FORM)).to.equal(null);
  });
});
