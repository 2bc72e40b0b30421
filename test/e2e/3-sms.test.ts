/**
 * Scenario 3, the SMS path: choose "Text me a link", see `sms-sent`, see the
 * message in the demo's sandbox outbox, open the link from the outbox in a
 * second browser (as the phone would), complete there, and see the first page
 * reach `complete` by itself (it polls the result while in `sms-sent`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALICE, axeViolations, en, assertStopped, eventLog, fillForm, openBrowser, startStack, submit, waitForState, widget } from './helpers';

test('SMS path: "Text me a link" → outbox → phone completes → first page completes by itself', { timeout: 90_000 }, async () => {
  const worker = await startStack();
  const laptop = await openBrowser();
  const phone = await openBrowser({ width: 390, height: 844 });
  try {
    const { page } = laptop;
    await page.goto(worker.url + '/');
    await fillForm(page, { ...ALICE, givenName: 'Carol', familyName: 'Texter' });
    await widget(page).getByRole('radio', { name: 'Text me a link' }).check();
    await submit(page);
    await waitForState(page, 'sms-sent');
    await widget(page).getByText(en.smsSent.split('{phone}')[0]!.trim()).waitFor();
    assert.equal(new URL(page.url()).pathname, '/', 'the laptop stays on the page');

    // The demo's outbox for this visitor shows the message, with its link.
    const outbox = page.getByRole('region', { name: 'SMS outbox' });
    const message = outbox.getByRole('listitem').first();
    await message.waitFor({ timeout: 10_000 });
    const text = await message.innerText();
    assert.match(text, /Hi, .*verify your identity/, 'the outbox shows the text as sent');
    assert.doesNotMatch(text, /Carol/, 'nothing the person typed goes into the text message');
    assert.doesNotMatch(text, /412 ?345 ?678/, 'the number is masked in the outbox');
    const href = await message.getByRole('link', { name: 'Open the link (as the phone)' }).getAttribute('href');
    assert.ok(href && new URL(href).pathname.startsWith('/sandbox/flow/'), `the SMS carries the hosted-flow link (${href})`);
    assert.deepEqual(await axeViolations(page), [], 'the demo with an SMS in the outbox and events in the log is axe-clean');

    // On the phone: open the link, complete. The phone has no session, so it is told to go back.
    await phone.page.goto(href);
    await phone.page.getByRole('button', { name: 'Complete verification' }).click();
    await phone.page.waitForLoadState();
    await phone.page.getByText(/go back to where you started/).waitFor();

    // The laptop gets there on its own.
    await waitForState(page, 'complete', 30_000);
    await widget(page).getByText(en.completeSuccess).waitFor();
    const newest = eventLog(page).first();
    await newest.getByText('kyc-complete').waitFor();
    assert.match(await newest.innerText(), /CHECKED_SUCCESS_CLEAR/);
    const all = (await eventLog(page).allInnerTexts()).join('\n');
    assert.match(all, /smsSent: true/);
    assert.doesNotMatch(all, /kyc-redirect/, 'the laptop never left for the hosted flow');
    assert.deepEqual(laptop.problems, []);
  } finally {
    await phone.close();
    await laptop.close();
    await worker.stop();
  }
  await assertStopped(worker.url);
});
