// Faults: refused input mapped onto fields, 429, 5xx, network failure; retries and idempotency keys.
import { expect, fixtureCleanup } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import { $, errorAnswer, fillValid, linkAnswer, mockApi, mount, oneEvent, submit, text, type, until, waitState } from './helpers.js';

afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear();
});

describe('<kyc-onboard> errors', () => {
  it('puts server field issues on the right fields, keeps what was typed, focuses the first', async () => {
    mockApi({
      link: () =>
        errorAnswer(400, 'BAD_REQUEST', [
          { issue: 'must be in the past', issueLocation: 'dateOfBirth' },
          { issue: 'is not a mobile number', issueLocation: 'phone.number' },
          { issue: 'is required', issueLocation: 'name.familyName' },
        ]),
    });
    const el = await mount();
    await fillValid(el);
    const error = oneEvent(el, 'kyc-error');
    await submit(el);
    const { detail } = await error;
    expect(detail).to.deep.equal({ errorCode: 'BAD_REQUEST', requestId: 'req-400', retryable: false, status: 400 });
    expect(el.state).to.equal('error');
    expect(el.matches(':state(error)')).to.equal(true);
    await el.updateComplete;
    for (const [id, field] of [
      ['dobDay', 'dateOfBirth'],
      ['dobMonth', 'dateOfBirth'],
      ['dobYear', 'dateOfBirth'],
      ['phoneNumber', 'phoneNumber'],
      ['familyName', 'familyName'],
    ]) {
      const input = $(el, `#${id}`);
      expect(input.getAttribute('aria-invalid'), id).to.equal('true');
      expect(input.getAttribute('aria-describedby'), id).to.contain(`${field}-error`);
      expect($(el, `#${field}-error`).textContent, id).not.to.equal('');
    }
    expect($(el, '#givenName').hasAttribute('aria-invalid')).to.equal(false);
    expect($(el, '#consent').hasAttribute('aria-invalid')).to.equal(false);
    // Nothing typed is lost.
    expect($(el, '#familyName').value).to.equal('Citizen');
    expect($(el, '#givenName').value).to.equal('Jane');
    expect($(el, '#phoneNumber').value).to.equal('0412 345 678');
    expect($(el, '#consent').checked).to.equal(true);
    await until(() => el.shadowRoot!.activeElement?.id === 'familyName', 'focus on the first wrong field');
    expect(el.shadowRoot!.activeElement?.id).to.equal('familyName');
    expect($(el, '[role=alert]').textContent).to.contain('Please check the marked fields');
    // No retry button for refused input: fixing the field and submitting again is the way.
    expect(el.shadowRoot!.querySelector('[role=alert] button')).to.equal(null);
    await expect(el).to.be.accessible();
    // Editing a field clears its server error.
    await type(el, 'phoneNumber', '0412 345 679');
    expect($(el, '#phoneNumber').hasAttribute('aria-invalid')).to.equal(false);
  });

  it('429: retryable error with a human message; "Try again" is a new submission', async () => {
    const calls = mockApi({
      link: (_c, n) => (n === 0 ? errorAnswer(429, 'RATE_LIMITED', [], { 'Retry-After': '30' }) : HttpResponse.json(linkAnswer())),
    });
    const el = await mount();
    el.navigate = () => {};
    await fillValid(el);
    const error = oneEvent(el, 'kyc-error');
    await submit(el);
    expect((await error).detail).to.deep.include({ errorCode: 'RATE_LIMITED', retryable: true, status: 429 });
    await el.updateComplete;
    expect(calls.link.length).to.equal(1); // no automatic retry on 429
    expect(text(el)).to.contain('Too many attempts');
    await expect(el).to.be.accessible();
    $(el, '[role=alert] button').click();
    await waitState(el, 'redirecting');
    expect(calls.link.length).to.equal(2);
    expect(calls.link[1]!.key).not.to.equal(calls.link[0]!.key);
  });

  it('a network failure: NETWORK_ERROR, requestId "", retryable; one automatic retry with the same key', async () => {
    const calls = mockApi({ link: () => HttpResponse.error() });
    const el = await mount();
    await fillValid(el);
    const error = oneEvent(el, 'kyc-error');
    await submit(el);
    expect((await error).detail).to.deep.equal({ errorCode: 'NETWORK_ERROR', requestId: '', retryable: true, status: 0 });
    expect(calls.link.length).to.equal(2);
    expect(calls.link[0]!.key).to.be.a('string');
    expect(calls.link[1]!.key).to.equal(calls.link[0]!.key);
    await el.updateComplete;
    expect(text(el)).to.contain('Can’t connect');
    expect(el.shadowRoot!.querySelector('[role=alert] button')?.textContent).to.equal('Try again');
    expect($(el, '#familyName').value).to.equal('Citizen');
  });

  it('502 then success: the automatic retry reuses the Idempotency-Key and carries on', async () => {
    const calls = mockApi({ link: (_c, n) => (n === 0 ? errorAnswer(502, 'VENDOR_ERROR') : HttpResponse.json(linkAnswer())) });
    const el = await mount();
    el.navigate = () => {};
    await fillValid(el);
    await submit(el);
    await waitState(el, 'redirecting');
    expect(calls.link.length).to.equal(2);
    expect(calls.link[1]!.key).to.equal(calls.link[0]!.key);
  });

  it('503 with Retry-After (a busy vendor): no automatic retry before it, the person told until when; "Try again" stays', async () => {
    const calls = mockApi({ link: () => errorAnswer(503, 'VENDOR_BUSY', [], { 'Retry-After': '600' }) });
    const el = await mount();
    await fillValid(el);
    const error = oneEvent(el, 'kyc-error');
    const asked = Date.now();
    await submit(el);
    expect((await error).detail).to.deep.include({ errorCode: 'VENDOR_BUSY', retryable: true, status: 503 });
    await el.updateComplete;
    expect(calls.link.length).to.equal(1);
    expect(text(el)).to.contain('Verification is unavailable right now. Please try again after');
    // The time of day the Retry-After ends, as the widget writes it (the minute it ends, or the next if the answer
    // came across a minute's turn).
    const times = [0, 60_000].map((d) => new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(asked + 600_000 + d));
    expect(
      times.some((t) => text(el).includes(`after ${t}.`)),
      `${text(el)} names one of ${times.join(', ')}`,
    ).to.equal(true);
    expect(el.shadowRoot!.querySelector('[role=alert] button')?.textContent).to.equal('Try again');
  });

  it('504 twice: error state, retryable, vendor message', async () => {
    mockApi({ link: () => errorAnswer(504, 'VENDOR_TIMEOUT') });
    const el = await mount();
    await fillValid(el);
    const error = oneEvent(el, 'kyc-error');
    await submit(el);
    expect((await error).detail).to.deep.include({ errorCode: 'VENDOR_TIMEOUT', retryable: true, requestId: 'req-504' });
    await el.updateComplete;
    expect(text(el)).to.contain('unavailable');
    await expect(el).to.be.accessible();
  });

  it('500 misconfigured and 403 origin: not retryable, no retry button', async () => {
    for (const [status, code] of [
      [500, 'MISCONFIGURED'],
      [403, 'ORIGIN_NOT_ALLOWED'],
    ] as const) {
      mockApi({ link: () => errorAnswer(status, code) });
      const el = await mount();
      await fillValid(el);
      const error = oneEvent(el, 'kyc-error');
      await submit(el);
      expect((await error).detail).to.deep.include({ errorCode: code, retryable: false, status });
      await el.updateComplete;
      expect(el.shadowRoot!.querySelector('[role=alert] button')).to.equal(null);
      expect(text(el)).to.contain('can’t start on this page');
      fixtureCleanup();
    }
  });

  it('a non-JSON error answer still becomes an ErrorObject-like kyc-error', async () => {
    mockApi({ link: () => new HttpResponse('Bad gateway', { status: 503 }) });
    const el = await mount();
    await fillValid(el);
    const error = oneEvent(el, 'kyc-error');
    await submit(el);
    expect((await error).detail).to.deep.include({ errorCode: 'HTTP_503', retryable: true, status: 503 });
  });
});
