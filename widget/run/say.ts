/** A refused number says which country its code is: "+61 is Australia: is that right?". */
import type { FlowApi, ViewContext } from '../flow-api.js';
import type { ErrorKey } from '../fields.js';

export const say =
  (flow: FlowApi) =>
  ({ t, lang }: ViewContext, key: ErrorKey): string => {
    if (key === 'errTooYoung') return t[key].replace('{age}', String(flow.settings?.minAge ?? ''));
    const code = flow.values.phoneCode;
    // Only about a number that was typed: an empty field needs the number, not a word about its code.
    const region = key === 'errNumber' && flow.values.phoneNumber.trim() ? flow.codes?.regionsOf(code)[0] : undefined;
    if (!region) return t[key];
    const country = new Intl.DisplayNames([lang], { type: 'region' }).of(region) ?? region;
    return `${t[key]} ${t.countryIs.replace('{code}', code).replace('{country}', country)}`;
  };
