/**
 * Localisation as a Lit reactive controller: which language the widget speaks
 * (`lang` attribute, then `<html lang>`, then the browser), its writing
 * direction (`$dir`), and its dictionary (rules/language.ts matches the tag:
 * `pt-BR`, `zh-TW` → `zh-Hant`, `nn` → `nb`…). English is built in; the other
 * dictionaries are separate files loaded on first use (widget/dictionary.ts),
 * so an English page never waits for the network and other pages show
 * English for the moment the file takes, then switch. A language without a
 * dictionary, or one that cannot be fetched, stays English (and is not asked
 * for again on every render). `<html lang>` is observed: a page that changes
 * its language after the first render gets the widget in the new language.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { matchLanguage } from '../rules/language.js';
import { loadDictionary } from './dictionary.js';
import form from './i18n/en/form.js';
import type { Strings } from './i18n/en.js';

/**
 * English as far as it is here: the form's strings (the entry), completed by
 * the run chunk's (`addEnglish`) before any view that shows them can render.
 */
const en = form as Strings;

/** The run chunk's English (its views' strings), added to the entry's. */
export const addEnglish = (more: Partial<Strings>): void => void Object.assign(en, more);

/** Loaded dictionaries, shared by every widget on the page (English for a language that has none). */
const loaded: Record<string, Strings | Promise<void>> = { en };

/** Languages written right to left. */
const RTL = /^(ar|he|fa|ur)\b/;

export interface LocaleHost extends ReactiveControllerHost, HTMLElement {
  /** Partner overrides of any string. */
  strings?: Partial<Strings>;
}

export class Locale implements ReactiveController {
  private _observer?: MutationObserver;

  constructor(private _host: LocaleHost) {
    _host.addController(this);
  }

  hostConnected(): void {
    // The page may set or change `<html lang>` after the widget rendered.
    this._observer = new MutationObserver(() => this._host.requestUpdate());
    this._observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
  }

  hostDisconnected(): void {
    this._observer?.disconnect();
  }

  /** The full language tag in effect (`fr-CA`, `en`): dates and times are formatted with it. */
  get tag(): string {
    return this._host.lang || document.documentElement.lang || navigator.language || 'en';
  }

  /** The dictionary asked for (`fr`, `pt-BR`, `zh-Hant`, `ka`), whether or not it has arrived, or exists. */
  get code(): string {
    return matchLanguage(this.tag);
  }

  /** The language of the dictionary in use right now (`en` until another one has arrived). */
  get lang(): string {
    const d = loaded[this.code];
    return d && !(d instanceof Promise) && d != en ? this.code : 'en';
  }

  /** `rtl` or `ltr`, for the language being shown. */
  get $dir(): 'rtl' | 'ltr' {
    return RTL.test(this.lang) ? 'rtl' : 'ltr';
  }

  /** The strings to show now; starts loading the wanted dictionary if it is not here yet. */
  get t(): Strings {
    const code = this.code;
    loaded[code] ??= loadDictionary(code).then(
      (m) => {
        loaded[code] = m.default;
      },
      () => {
        // No such dictionary, offline, or blocked: English, without asking again on every render.
        loaded[code] = en;
      },
    );
    const d = loaded[code];
    if (d instanceof Promise) void d.then(() => this._host.requestUpdate());
    return { ...(d instanceof Promise ? en : d), ...this._host.strings };
  }
}
