/**
 * GET /api/settings — the partner's settings its widget starts with (the partner of the page's Origin): today the
 * default country, for the country code when the widget's language names no region. Nothing personal or secret; a
 * page of no partner gets the 403 the other routes give (and, being a GET, cannot read it).
 */
import { Hono } from 'hono/tiny';
import type { SettingsAnswer } from '../contract';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';

export const settings = new Hono<AppEnv>().get('/settings', (c) => {
  const partner = c.get('partner');
  if (!partner) throw new ApiError(403, 'ORIGIN_NOT_ALLOWED', 'This site is not allowed to use this service.');
  const answer: SettingsAnswer = partner.defaultCountry ? { defaultCountry: partner.defaultCountry } : {};
  return c.json(answer);
});
