// A failed attempt is not a dead end: `requires_input` (the check found no match: maybe a typo) brings the form back
// as it was, with what to check above it, and sending it is the next attempt of the same verification. The final
// state has an `outcome` slot, and `kyc-complete` says whether the partner's server may start another verification.
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import type { ResultAnswer } from '../../worker/contract.js';
import { $, fillValid, linkAnswer, mockApi, mount, oneEvent, submit, text, type, until, waitState } from './helpers.js';

const startUrl = location.href;
afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear();
  history.replaceState(null, '', startUrl);
});

const vid = linkAnswer().verificationId;

describe('<kyc-onboard> attempts', () => {
  it('requires_input: "Check your details and try again", the form as it was, and a second attempt of the same verification', async () => {
    let attempt = 0;
    const calls = mockApi({
      link: () => HttpResponse.json(linkAnswer({ session: `sess-${attempt}` })),
      result: (call) => {
        const answer: ResultAnswer =
          attempt === 1
            ? { status: 'requires_input', lastAttempt: { checkStatus: 'NO_MATCH' }, checkStatus: 'CHECKING', verificationId: vid }
            : { status: 'final', checkStatus: 'CHECKED_SUCCESS_CLEAR', verificationId: vid, resultToken: 'h.c.s' };
        return HttpResponse.json(
          attempt > 0 && call.body.session === `sess-${attempt - 1}` ? answer : { checkStatus: 'CHECKING', verificationId: vid },
        );
      },
    });
    const el = await mount();
    el.navigate = () => {
      attempt++;
    };
    el.pollIntervals = [0, 0, 0];
    await fillValid(el, { dateOfBirth: '1990-01-02' });
    await submit(el);
    // Sent to the hosted flow (`redirecting` may last less than a look of waitState: the tab asks at once, and hears).
    await until(() => attempt === 1, 'sent to the hosted flow');
    // The hosted flow (a popup here, as the tab keeps asking) ends: the check found no match.
    await until(() => text(el).includes('Check your details and try again'), `what to check (${text(el)})`);
    await waitState(el, 'idle');
    await el.updateComplete;
    expect(el.shadowRoot!.activeElement?.id).to.equal('focus');
    expect($(el, '#familyName').value).to.equal('Citizen');
    expect($(el, '#dobYear').value).to.equal('1990');
    await expect(el).to.be.accessible();
    // The person corrects the one wrong field and sends again: no other typing.
    await type(el, 'dobDay', '3');
    const complete = oneEvent(el, 'kyc-complete');
    await submit(el);
    await until(() => calls.link.length === 2, 'the second attempt asked for');
    const second = calls.link.at(-1)!.body as { session?: string; dateOfBirth: string };
    expect(second.session).to.equal('sess-0', 'the next attempt of the same verification');
    expect(second.dateOfBirth).to.equal('1990-01-03');
    const detail = (await complete).detail;
    expect(detail.verificationId).to.equal(vid);
    expect(detail.checkStatus).to.equal('CHECKED_SUCCESS_CLEAR');
    expect(detail.mayStartAnother).to.equal(false);
  });

  it('the final state shows the partner’s `outcome` slot; kyc-complete says another verification may be started', async () => {
    mockApi({ result: () => HttpResponse.json({ checkStatus: 'NO_MATCH', verificationId: vid, resultToken: 'h.c.s', status: 'final' }) });
    history.replaceState(null, '', `${startUrl.split('?')[0]}?kyc_return=error`);
    sessionStorage.setItem('kyc-onboard:session', JSON.stringify({ session: 'ended' }));
    const el = await mount(
      html`<kyc-onboard><p slot="outcome">Visit a branch with your passport, or call us on 1800 000 000.</p></kyc-onboard>`,
    );
    const complete = oneEvent(el, 'kyc-complete');
    expect((await complete).detail.mayStartAnother).to.equal(true);
    await waitState(el, 'complete');
    await el.updateComplete;
    const slot = $<HTMLSlotElement>(el, 'slot[name=outcome]');
    expect(slot.assignedElements()[0]!.textContent).to.contain('Visit a branch');
    expect(slot.closest('[part~=complete]')).to.exist;
    await expect(el).to.be.accessible();
  });
});
