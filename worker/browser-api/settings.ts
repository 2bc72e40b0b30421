/**
 * GET /api/settings — the partner's settings its widget starts with (the partner of the page's Origin): the default
 * country (the country code when the widget's language names no region), the minimum age (the form refuses a younger
 * person before any request, as the worker does), and whether and where a link may be texted (the widget offers
 * "Text me a link" only there). Nothing personal or secret.
 * A request of no partner gets `{}`, not a 403: a browser sends no `Origin` with a same-origin GET (a page served by
 * the worker itself, as the demo is), and a refusal there would be a console error on a page that works; another
 * site's page still cannot read the answer (no CORS grant).
 */
import { Hono } from 'hono/tiny';
import type { SettingsAnswer } from '../contract';
import type { AppEnv } from '../app-env';
import { config } from '../config';
import { adapterOf, vendorsOf } from '../vendors/for-partner';

export const settings = new Hono<AppEnv>().get('/settings', (c) => {
  const partner = c.get('partner');
  if (!partner) return c.json({} satisfies SettingsAnswer);
  const cfg = config(c.env);
  const answer: SettingsAnswer = {
    ...(partner.defaultCountry ? { defaultCountry: partner.defaultCountry } : {}),
    ...(partner.minAge ? { minAge: partner.minAge } : {}),
    // Texting exists where the partner's vendor sends texts (Stripe does not) and some country may get one
    // (the sandbox "sends" too): the widget offers "Text me a link" only then.
    sms: cfg.sms.allowedCountries.length > 0 && texts(c, partner),
    smsCountries: cfg.sms.allowedCountries,
  };
  return c.json(answer);
});

/** Whether the vendor a new verification of `partner` is made with texts its own link. */
function texts(c: Parameters<typeof adapterOf>[0], partner: Parameters<typeof adapterOf>[1]): boolean {
  try {
    return adapterOf(c, partner, vendorsOf(config(c.env), partner)[0]!).capabilities.sms;
  } catch {
    return false; // a vendor without its settings texts nothing (the configuration guard names what is missing)
  }
}
