/**
 * The person's phone number on a link request: a valid mobile, and for a
 * texted link one this service may text (SMS_ALLOWED_COUNTRIES), with the
 * per-number allowances spent. One rule for a first link, a next attempt and
 * "Send again".
 */
import type { Env } from '../lib/env';
import { countText, hashKey, type WithAllowances } from '../lib/allowances';
import { ApiError, validationError } from '../lib/errors';
import { enforce } from '../lib/limits';
import { parsePhone, type ParsedPhone } from '../lib/phone';
import type { Config } from '../config';

/** The parsed number, or a 400 naming the field; `SMS_NOT_ALLOWED` for a number that may not get a text. */
export function checkedPhone(cfg: Config, given: { code: string; number: string }, sendSMS: boolean): ParsedPhone {
  const { phone, issues } = parsePhone(given.code, given.number);
  if (!phone) throw validationError(issues);
  if (sendSMS && (!phone.country || !cfg.sms.allowedCountries.includes(phone.country))) {
    // A valid mobile that may not get a text: its own code, so the widget can offer "continue on this device".
    throw new ApiError(400, 'SMS_NOT_ALLOWED', 'This number cannot receive a text message from this service.', [
      { issue: 'cannot receive a text message from this service', issueLocation: 'phone.number' },
    ]);
  }
  return phone;
}

/** Per number, whichever partner asks: a minute's texts, and a day's. */
export async function spendText(env: Env, ports: WithAllowances, phone: ParsedPhone, verificationId: string): Promise<void> {
  await enforce(env, 'RL_SMS', await hashKey(env, ports, 'sms', phone.e164), 'text messages to this number');
  await countText(env, ports, phone.e164, verificationId);
}

/** The number a link is texted to, as the record keeps it: a keyed hash (allowances.ts `hashKey`), never the number. */
export const textedTo = (env: Env, ports: WithAllowances, phone: ParsedPhone): Promise<string> => hashKey(env, ports, 'sms-to', phone.e164);

/**
 * "Send again" (and a texted next attempt) goes to the number the link was
 * texted to, and nowhere else (issue 40: one session texted five numbers):
 * another number is "Change my number", which ends this verification and
 * starts a new one, under the same budgets. 400 naming `phone`.
 */
export async function sameNumber(env: Env, ports: WithAllowances, to: string | undefined, phone: ParsedPhone): Promise<void> {
  if (to === undefined || to === (await textedTo(env, ports, phone))) return;
  throw validationError([
    {
      issue: 'must be the number the link was texted to (for another number, start again with "Change my number")',
      issueLocation: 'phone',
    },
  ]);
}
