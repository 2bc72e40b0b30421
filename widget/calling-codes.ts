/**
 * Which country a calling code is, and the other way round, for the country code field: its default (`defaultCode`),
 * the country a refused number's code belongs to, and whether texting a country is allowed. A chunk of its own (about 1 KB gzip), loaded when the form first shows. The table is
 * libphonenumber-js's (the worker's), checked against it by test/rules/calling-codes.test.ts.
 */

import type { SettingsAnswer } from '../worker/contract.js';

/** `code:REGION REGION…;…`, the region first that the code is best known for (+1 is US, +44 GB). */
export const TABLE =
  '1:US AG AI AS BB BM BS CA DM DO GD GU JM KN KY LC MP MS PR SX TC TT VC VG VI;7:RU KZ;20:EG;27:ZA;30:GR;31:NL;32:BE;33:FR;34:ES;36:HU;39:IT VA;40:RO;41:CH;43:AT;44:GB GG IM JE;45:DK;46:SE;47:NO SJ;48:PL;49:DE;51:PE;52:MX;53:CU;54:AR;55:BR;56:CL;57:CO;58:VE;60:MY;61:AU CC CX;62:ID;63:PH;64:NZ;65:SG;66:TH;81:JP;82:KR;84:VN;86:CN;90:TR;91:IN;92:PK;93:AF;94:LK;95:MM;98:IR;211:SS;212:MA EH;213:DZ;216:TN;218:LY;220:GM;221:SN;222:MR;223:ML;224:GN;225:CI;226:BF;227:NE;228:TG;229:BJ;230:MU;231:LR;232:SL;233:GH;234:NG;235:TD;236:CF;237:CM;238:CV;239:ST;240:GQ;241:GA;242:CG;243:CD;244:AO;245:GW;246:IO;247:AC;248:SC;249:SD;250:RW;251:ET;252:SO;253:DJ;254:KE;255:TZ;256:UG;257:BI;258:MZ;260:ZM;261:MG;262:RE YT;263:ZW;264:NA;265:MW;266:LS;267:BW;268:SZ;269:KM;290:SH TA;291:ER;297:AW;298:FO;299:GL;350:GI;351:PT;352:LU;353:IE;354:IS;355:AL;356:MT;357:CY;358:FI AX;359:BG;370:LT;371:LV;372:EE;373:MD;374:AM;375:BY;376:AD;377:MC;378:SM;380:UA;381:RS;382:ME;383:XK;385:HR;386:SI;387:BA;389:MK;420:CZ;421:SK;423:LI;500:FK;501:BZ;502:GT;503:SV;504:HN;505:NI;506:CR;507:PA;508:PM;509:HT;590:GP BL MF;591:BO;592:GY;593:EC;594:GF;595:PY;596:MQ;597:SR;598:UY;599:CW BQ;670:TL;672:NF;673:BN;674:NR;675:PG;676:TO;677:SB;678:VU;679:FJ;680:PW;681:WF;682:CK;683:NU;685:WS;686:KI;687:NC;688:TV;689:PF;690:TK;691:FM;692:MH;850:KP;852:HK;853:MO;855:KH;856:LA;880:BD;886:TW;960:MV;961:LB;962:JO;963:SY;964:IQ;965:KW;966:SA;967:YE;968:OM;970:PS;971:AE;972:IL;973:BH;974:QA;975:BT;976:MN;977:NP;992:TJ;993:TM;994:AZ;995:GE;996:KG;998:UZ';

const byCode = new Map<string, string[]>();
const byRegion = new Map<string, string>();
for (const entry of TABLE.split(';')) {
  const [code = '', regions = ''] = entry.split(':');
  const list = regions.split(' ');
  byCode.set('+' + code, list);
  for (const r of list) byRegion.set(r, '+' + code);
}

/** The calling code of a region (`DE` → `+49`), if it has one. */
export const codeOf = (region: string): string | undefined => byRegion.get(region.toUpperCase());

/** The regions that use a calling code (`+44` → GB, GG, IM, JE), the main one first; none for an unknown code. */
export const regionsOf = (code: string): string[] => byCode.get(code) ?? [];

/**
 * Whether a text may go to a calling code: where the partner's worker texts (its settings: whether it texts at all,
 * and to which countries), narrowed by the page's own `sms-countries`; without the worker's list (not answered yet,
 * an older worker), the page's list, else the worker's default one. The code as typed (`61`, `0061`, `+61`).
 */
export function textable(typed: string, s: SettingsAnswer = {}, own?: string): boolean {
  const code = '+' + typed.replace(/\D/g, '').replace(/^00/, '');
  const to = (list: string) => list.split(/[\s,]+/).some((r) => codeOf(r) === code);
  return s.sms !== false && to(s.smsCountries?.join() ?? own ?? 'AU NZ GB IE US CA') && (!own || to(own));
}

/** The calling code of a language tag's region (`de-DE` → `+49`), if it names one. */
const codeOfTag = (tag: string): string | undefined => {
  try {
    const region = new Intl.Locale(tag).region;
    return region && codeOf(region);
  } catch {
    return undefined;
  }
};

/** The default without asking the worker: the language's region, else the browser's, else Australia's. */
export function quickCode(lang: string): string {
  for (const tag of [lang, ...navigator.languages]) {
    const code = codeOfTag(tag);
    if (code) return code;
  }
  return '+61';
}

/**
 * The country code the field starts with: the region of the widget's language (`lang="de-DE"` → +49), else the
 * partner's default country (the worker's `GET {endpoint}/settings`: nothing personal goes or comes), else the
 * region of the browser's languages, else Australia's. Here, not in the entry, so the first render pays for none of it.
 */
export async function defaultCode(lang: string, settings: Promise<SettingsAnswer>): Promise<string> {
  const own = codeOfTag(lang);
  if (own) return own;
  const { defaultCountry } = await settings;
  const partner = typeof defaultCountry === 'string' && codeOf(defaultCountry);
  return partner || quickCode(''); // `lang` named no region: the browser's, else Australia's
}

/**
 * The partner's settings (`GET {endpoint}/settings`: nothing personal goes or comes): its default country, its
 * minimum age, whether and where texts may go. `{}` without an answer (offline, another origin's worker, an older
 * worker): the widget then goes by its own defaults, and the worker still refuses what it must.
 */
export async function settingsOf(endpoint: string): Promise<SettingsAnswer> {
  try {
    const res = await fetch(endpoint.replace(/\/+$/, '') + '/settings', { headers: { accept: 'application/json' } });
    const s: unknown = res.ok ? await res.json() : {};
    return typeof s === 'object' && s !== null ? s : {};
  } catch {
    return {};
  }
}

/** What `begin` needs of the flow (flow-api.ts's `FlowApi`, which names this module: no import back). */
interface Starting {
  readonly host: { endpoint: string; lang: string; countryCode: string | undefined; requestUpdate(): void };
  values: { phoneCode: string };
  settings?: SettingsAnswer;
}

/**
 * On start (flow.ts, which put the table on the flow): the partner's settings asked once per element (its minimum age, where
 * texts may go), and the country code: the partner's `country-code`, else the browser's default at once (the field
 * is never empty while the partner's answer is on its way), then the partner's default country in its place when it
 * comes, unless the person changed the field meanwhile.
 */
export async function begin(flow: Starting): Promise<void> {
  const h = flow.host;
  const v = flow.values;
  const settings = settingsOf(h.endpoint).then((s) => ((flow.settings = s), h.requestUpdate(), s));
  if (h.countryCode) {
    v.phoneCode ||= h.countryCode;
    return;
  }
  const lang = h.lang || document.documentElement.lang;
  const quick = quickCode(lang);
  v.phoneCode ||= quick;
  h.requestUpdate();
  const code = await defaultCode(lang, settings);
  if (v.phoneCode === quick || !v.phoneCode) v.phoneCode = code;
}
