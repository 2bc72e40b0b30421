/**
 * The dictionary check the build runs (scripts/lib/dictionaries.mjs), fed the
 * real dictionaries (they pass) and broken ones (each problem fails it, named):
 * a missing key, an extra key, a changed placeholder, a dropped plural form, an
 * English leftover, an empty value, a missing
 * language, a bad review status. Also the language matching and plural filling
 * the widget and the phone's pages share (rules/language.ts, rules/message.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
// @ts-expect-error: a plain JS module of the build, without types
import { checkAll, checkDictionaries, pageDictionaries, widgetDictionaries } from '../../scripts/lib/dictionaries.mjs';
import { fromAcceptLanguage, LANGUAGES, matchLanguage, supportedLanguage } from '../../rules/language';
import { fill, placeholders } from '../../rules/message';

type Dict = { code: string; strings: Record<string, unknown>; review: string };

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

describe('the dictionary check (part of the build)', () => {
  it('passes the 48 widget and 48 page dictionaries as they are', async () => {
    assert.deepEqual(await checkAll(), []);
    const widget: Dict[] = await widgetDictionaries();
    assert.deepEqual(widget.map((d) => d.code).sort(), [...LANGUAGES].sort());
    assert.ok(widget.every((d) => (d.code === 'en' ? d.review === 'source' : ['ai-drafted', 'native-reviewed'].includes(d.review))));
    const pages: Dict[] = await pageDictionaries();
    assert.deepEqual(pages.map((d) => d.code).sort(), [...LANGUAGES].sort());
  });

  it('fails a broken dictionary, naming the language, the key and the problem', async () => {
    const real: Dict[] = await widgetDictionaries();
    const broken = clone(real);
    const fr = broken.find((d) => d.code === 'fr')!;
    const de = broken.find((d) => d.code === 'de')!;
    const ja = broken.find((d) => d.code === 'ja')!;
    const pl = broken.find((d) => d.code === 'pl')!;
    delete fr.strings.errCode; // missing key
    fr.strings.extraKey = 'Bonjour'; // not in English
    fr.strings.smsSent = 'Lien envoyé au {numero}. Ouvrez-le.'; // changed placeholder
    de.strings.checking = 'Checking your result…'; // English leftover
    de.strings.copied = '   '; // empty
    pl.strings.sendAgainWait = 'Spróbuj za {seconds, plural, one {# sekundę} other {# sekundy}}.'; // Polish needs few and many
    ja.review = 'checked'; // not a review status
    const problems: string[] = await checkDictionaries(
      broken.filter((d) => d.code !== 'sw'), // a language without a dictionary
      { what: 'widget', sameAsEnglish: { de: { optional: 'Optional' } } },
    );
    const expect = [
      'widget sw: missing',
      'widget fr: key errCode is missing',
      'widget fr: key extraKey is not in English',
      'widget fr: key smsSent has placeholders {numero}, English has {phone}',
      'widget de: key checking is the English text',
      'widget de: key copied is empty',
      'widget ja: review status "checked"',
      'widget pl: key sendAgainWait: plural {seconds} lacks the form "few"',
      'widget pl: key sendAgainWait: plural {seconds} lacks the form "many"',
    ];
    for (const e of expect)
      assert.ok(
        problems.some((p) => p.startsWith(e)),
        `${e}\n  in: ${problems.join('\n  ')}`,
      );
    assert.equal(problems.length, expect.length, problems.join('\n'));
  });

  it('an equal value passes only where the reviewed allow-list names that key with that value', async () => {
    const pages: Dict[] = await pageDictionaries();
    // French with one label left as English's.
    const english = pages.find((d) => d.code === 'en')!.strings.codeLabel as string;
    const real = pages.map((d) => (d.code === 'fr' ? { ...d, strings: { ...d.strings, codeLabel: english } } : d));
    const without = await checkDictionaries(real, { sameAsEnglish: {}, what: 'pages' });
    assert.ok(without.some((p: string) => p.startsWith('pages fr: key codeLabel is the English text')));
    const stale = await checkDictionaries(real, { sameAsEnglish: { fr: { codeLabel: english, confirm: 'Confirm' } }, what: 'pages' });
    assert.ok(stale.some((p: string) => p.startsWith('pages fr: same-as-english.json allows confirm')));
  });
});

describe('language tags → dictionaries (rules/language.ts)', () => {
  it('matches as people expect', () => {
    const cases: Record<string, string> = {
      'pt-PT': 'pt',
      pt: 'pt',
      'pt-BR': 'pt-BR',
      'zh-CN': 'zh-Hans',
      'zh-SG': 'zh-Hans',
      zh: 'zh-Hans',
      'zh-Hans-HK': 'zh-Hans',
      'zh-TW': 'zh-Hant',
      'zh-HK': 'zh-Hant',
      'zh-MO': 'zh-Hant',
      'zh-Hant-TW': 'zh-Hant',
      no: 'nb',
      nn: 'nb',
      'nb-NO': 'nb',
      tl: 'fil',
      'fil-PH': 'fil',
      'fr-CA': 'fr',
      'EN-gb': 'en',
      'sr-Latn-RS': 'sr',
      '': 'en',
      '../x': 'en',
      '1234': 'en',
    };
    for (const [tag, code] of Object.entries(cases)) assert.equal(matchLanguage(tag), code, tag);
    assert.equal(supportedLanguage('ka-GE'), undefined);
    assert.equal(supportedLanguage('ur-PK'), 'ur');
  });

  it('reads Accept-Language by its weights; q=0 means no; * and unknown languages are skipped', () => {
    assert.equal(fromAcceptLanguage('ka, he;q=0.8, en;q=0.5'), 'he');
    assert.equal(fromAcceptLanguage('en;q=0.3, pt-BR;q=0.9'), 'pt-BR');
    assert.equal(fromAcceptLanguage('de;q=0, fr;q=0.1'), 'fr');
    assert.equal(fromAcceptLanguage('*'), undefined);
    assert.equal(fromAcceptLanguage(undefined), undefined);
    assert.equal(fromAcceptLanguage('zh-HK,zh;q=0.9'), 'zh-Hant');
  });
});

describe('placeholders and plurals (rules/message.ts)', () => {
  it('fills plain values and picks plural forms with Intl.PluralRules', () => {
    const s = 'Try again in {seconds, plural, one {# second} other {# seconds}}, {name}.';
    assert.equal(fill(s, { seconds: 1, name: 'Ana' }, 'en'), 'Try again in 1 second, Ana.');
    assert.equal(fill(s, { seconds: 30, name: 'Ana' }, 'en'), 'Try again in 30 seconds, Ana.');
    const ru = '{n, plural, one {# попытка} few {# попытки} many {# попыток} other {# попытки}}';
    assert.deepEqual(
      [1, 2, 5, 21, 22, 25].map((n) => fill(ru, { n }, 'ru')),
      ['1 попытка', '2 попытки', '5 попыток', '21 попытка', '22 попытки', '25 попыток'],
    );
    const ar = '{n, plural, zero {لا شيء} one {واحدة} two {اثنتان} few {# قليلة} many {# كثيرة} other {# أخرى}}';
    assert.deepEqual(
      [0, 1, 2, 3, 11, 100].map((n) => fill(ar, { n }, 'ar')),
      ['لا شيء', 'واحدة', 'اثنتان', '3 قليلة', '11 كثيرة', '100 أخرى'],
    );
    // European Portuguese: 0 is "other" (Brazil's rules make it "one").
    const pt = '{n, plural, one {# tentativa} many {# tentativas} other {# tentativas}}';
    assert.equal(fill(pt, { n: 0 }, 'pt'), '0 tentativas');
    assert.equal(fill(pt, { n: 0 }, 'pt-BR'), '0 tentativa');
    assert.equal(fill('=0 {n, plural, =0 {none} other {#}}', { n: 0 }, 'en'), '=0 none');
  });

  it('names the placeholders a translation must keep', () => {
    assert.deepEqual(placeholders('{b} and {a, plural, one {x} other {y}} and {b}'), {
      names: ['a', 'b'],
      plurals: { a: ['one', 'other'] },
    });
    assert.deepEqual(placeholders('no placeholder'), { names: [], plurals: {} });
  });
});
