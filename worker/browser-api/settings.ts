/**
 * GET /api/settings — the partner's settings its widget starts with (the partner of the page's Origin): today the
 * default country, for the country code when the widget's language names no region. Nothing personal or secret.
 * A request of no partner gets `{}`, not a 403: a browser sends no `Origin` with a same-origin GET (a page served by
 * the worker itself, as the demo is), and a refusal there would be a console error on a page that works; another
 * site's page still cannot read the answer (no CORS grant).
 */
import { Hono } from 'hono/tiny';
import type { SettingsAnswer } from '../contract';
import type { AppEnv } from '../app-env';

export const settings = new Hono<AppEnv>().get('/settings', (c) => {
  const partner = c.get('partner');
  const answer: SettingsAnswer = partner?.defaultCountry ? { defaultCountry: partner.defaultCountry } : {};
  return c.json(answer);
});
