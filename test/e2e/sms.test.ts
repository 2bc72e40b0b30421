/**
 * The SMS path: choose "Text me a link", see `sms-sent` with a
 * 6-digit code, see the message in the demo's sandbox outbox, open the link
 * from the outbox in a second browser (as the phone would), complete there,
 * enter the code on the worker's return page, and see the first page reach
 * `complete` by itself (it polls the result while in `sms-sent`). Without the
 * code (the relay: someone else's phone got the text) nothing is credited.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALICE, axeViolations, en, eventLog, startOnPhone, waitForState, widget, withLaptopAndPhone } from './helpers';
import { until } from '../support/wait';

describe('the SMS path', () => {
  it('SMS path: "Text me a link" → outbox → phone completes → first page completes by itself', { timeout: 90_000 }, async () => {
    await withLaptopAndPhone(async ({ worker, laptop, phone }) => {
      const { page } = laptop;
      await page.goto(worker.url + '/');
      await startOnPhone(page, { ...ALICE, givenName: 'Carol', familyName: 'Texter' }, 'Text me a link');
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

      // The laptop shows the code the phone will ask for, and never held the hosted URL.
      const code = (await widget(page).locator('[part~="code"]').innerText()).replace(/\D/g, '');
      assert.match(code, /^\d{6}$/);
      assert.equal(await widget(page).getByRole('link').count(), 0, 'no hosted URL on the laptop');
      // The ways back: to the form, never to the hosted flow.
      assert.equal(await widget(page).getByRole('button', { name: en.useThisDevice }).count(), 1);
      assert.equal(await widget(page).getByRole('button', { name: en.changeNumber }).count(), 1);

      // On the phone: open the link, complete; the worker's page asks for the code.
      await phone.page.goto(href);
      await phone.page.getByRole('button', { name: 'Complete verification' }).click();
      await phone.page.getByRole('heading', { name: 'One last step' }).waitFor();
      assert.deepEqual(await axeViolations(phone.page), [], 'the code page is axe-clean');
      // Until the code is entered, nothing is credited: the vendor has the outcome (the
      // return page asked it at once), yet the laptop's own session reads CHECKING, no token.
      const pending = await page.evaluate(async () => {
        const { session } = JSON.parse(sessionStorage.getItem('kyc-onboard:session')!);
        const res = await fetch('/api/result', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ session }),
        });
        return res.json();
      });
      assert.equal(pending.checkStatus, 'CHECKING');
      assert.equal(pending.resultToken, undefined);
      assert.equal(await widget(page).locator('[part~="code"]').count(), 1, 'the laptop still waits for the code');
      const wrong = code === '000000' ? '111111' : '000000';
      await phone.page.getByLabel('Code').fill(wrong);
      await phone.page.getByRole('button', { name: 'Confirm' }).click();
      await phone.page.getByRole('alert').getByText('4 tries left').waitFor();
      await phone.page.getByLabel('Code').fill(code);
      await phone.page.getByRole('button', { name: 'Confirm' }).click();
      await phone.page.getByRole('heading', { name: 'All done' }).waitFor();

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
    });
  });

  it(
    '"Send again" until the worker refuses (429): one code throughout, the page says when to retry, and the FIRST text’s link completes with it',
    // Up to eight texts and two browsers: 180 s on a loaded machine.
    { timeout: 240_000 },
    async () => {
      await withLaptopAndPhone(async ({ worker, laptop, phone }) => {
        const { page } = laptop;
        await page.goto(worker.url + '/');
        await startOnPhone(page, { ...ALICE, givenName: 'Dana', familyName: 'Resender' }, 'Text me a link');
        // At most 3 texts per number per window (RL_SMS); the windows follow the clock, so
        // keep asking until one is refused rather than count on where a window starts.
        const refused = widget(page).getByRole('alert').filter({ hasText: 'Not sent again: too many texts.' });
        const shownCode = widget(page).locator('[part~="code"]');
        const outbox = page.getByRole('region', { name: 'SMS outbox' }).getByRole('listitem');
        await outbox.first().waitFor({ timeout: 10_000 });
        const code = (await shownCode.innerText()).replace(/\D/g, '');
        let sent = 1;
        for (let i = 0; i < 8 && !(await refused.count()); i++) {
          await widget(page).getByRole('button', { name: en.sendAgain }).click();
          // Either a new text in the outbox or the refusal.
          await until(async () => (await refused.count()) > 0 || (await outbox.count()) !== sent, {
            what: 'Send again to get an answer (a new text or the refusal)',
            timeoutMs: 15_000,
          });
          if (!(await refused.count())) sent++;
          assert.equal((await shownCode.innerText()).replace(/\D/g, ''), code, 'Send again never makes a new code');
        }
        await refused.waitFor();
        assert.match(await refused.innerText(), /Try (again )?in \d+ (s|seconds?); this page keeps waiting for your phone/);
        assert.equal(await widget(page).getAttribute('state'), 'sms-sent', 'the text already out still counts');
        assert.ok(sent >= 3, `${sent} texts went before the refusal`);
        assert.deepEqual(await axeViolations(page), [], 'the refusal is axe-clean');

        // The person opens the FIRST text (the outbox lists the newest first) and finishes with the code on screen:
        // that text's hosted flow is a check of its own at the vendor, and the worker asks about it too.
        assert.equal(await outbox.count(), sent, 'every text is in the outbox');
        const href = (await outbox.last().getByRole('link', { name: 'Open the link (as the phone)' }).getAttribute('href'))!;
        const newest = await outbox.first().getByRole('link', { name: 'Open the link (as the phone)' }).getAttribute('href');
        assert.notEqual(href, newest, 'each text carries a link of its own');
        await phone.page.goto(href);
        await phone.page.getByRole('button', { name: 'Complete verification' }).click();
        await phone.page.getByLabel('Code').fill(code);
        await phone.page.getByRole('button', { name: 'Confirm' }).click();
        await phone.page.getByRole('heading', { name: 'All done' }).waitFor();
        await waitForState(page, 'complete', 30_000);
        await widget(page).getByText(en.completeSuccess).waitFor();
        assert.deepEqual(
          laptop.problems.filter((p) => !/status of 429/.test(p)),
          [],
          'nothing but the refused request in the console',
        );
      });
    },
  );
  it('after "Send again", the newest text’s link completes with the same code', { timeout: 180_000 }, async () => {
    await withLaptopAndPhone(async ({ worker, laptop, phone }) => {
      const { page } = laptop;
      await page.goto(worker.url + '/');
      await startOnPhone(page, { ...ALICE, givenName: 'Evan', familyName: 'Newest' }, 'Text me a link');
      const outbox = page.getByRole('region', { name: 'SMS outbox' }).getByRole('listitem');
      await outbox.first().waitFor({ timeout: 10_000 });
      const code = (await widget(page).locator('[part~="code"]').innerText()).replace(/\D/g, '');
      await widget(page).getByRole('button', { name: en.sendAgain }).click();
      await outbox.nth(1).waitFor({ timeout: 15_000 }); // the second text reached the outbox
      const href = (await outbox.first().getByRole('link', { name: 'Open the link (as the phone)' }).getAttribute('href'))!;
      await phone.page.goto(href);
      await phone.page.getByRole('button', { name: 'Complete verification' }).click();
      await phone.page.getByLabel('Code').fill(code);
      await phone.page.getByRole('button', { name: 'Confirm' }).click();
      await phone.page.getByRole('heading', { name: 'All done' }).waitFor();
      await waitForState(page, 'complete', 30_000);
      await widget(page).getByText(en.completeSuccess).waitFor();
      assert.deepEqual(laptop.problems, []);
    });
  });
});
