/**
 * Localisation as a Lit reactive controller: which language the widget speaks
 * (`lang` attribute, then `<html lang>`, then the browser), its writing
 * direction (`$dir`), and its dictionary. English is built in; the other
 * dictionaries are separate chunks loaded on first use, so an English page
 * never waits for the network and other pages show English for the moment
 * the chunk takes, then switch. `<html lang>` is observed: a page that changes
 * its language after the first render gets the widget in the new language.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import en, { type Strings } from './i18n/en.js';

/**
 * A dictionary module: the typed object (npm build, tests), or, in the
 * self-contained bundle, the values packed into one `|`-separated string in
 * English's key order (scripts/build-widget.mjs), which saves the key names.
 */
type DictModule = { default: Strings | string };

const LOADERS: Record<string, () => Promise<DictModule>> = {
  ar: () => import('./i18n/ar.js'),
  de: () => import('./i18n/de.js'),
  es: () => import('./i18n/es.js'),
  fr: () => import('./i18n/fr.js'),
};

/** Loaded dictionaries, shared by every widget on the page. */
const loaded: Record<string, Strings | Promise<void>> = { en };

const unpack = (d: Strings | string): Strings => {
  if (typeof d !== 'string') return d;
  const v = d.split('|');
  return Object.fromEntries(Object.keys(en).map((k, i) => [k, v[i]])) as Strings;
};

/** Languages written right to left. */
const RTL = /^(ar|he|fa|ur)\b/i;

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

  /** The primary language asked for, lower case (`fr`), whether or not its dictionary has arrived. */
  get primary(): string {
    return this.tag.toLowerCase().split('-')[0]!;
  }

  /** The language of the dictionary in use right now (`en` until another one has arrived). */
  get lang(): string {
    const d = loaded[this.primary];
    return d && !(d instanceof Promise) ? this.primary : 'en';
  }

  /** `rtl` or `ltr`, for the language being shown. */
  get $dir(): 'rtl' | 'ltr' {
    return RTL.test(this.lang) ? 'rtl' : 'ltr';
  }

  /** The strings to show now; starts loading the wanted dictionary if it is not here yet. */
  get t(): Strings {
    const code = this.primary;
    const load = LOADERS[code];
    if (!loaded[code] && load) {
      loaded[code] = load().then(
        (m) => {
          loaded[code] = unpack(m.default);
        },
        () => {
          // Offline, or the chunk is blocked: English it is, and the next render may try again.
          delete loaded[code];
        },
      );
    }
    const d = loaded[code];
    if (d instanceof Promise) void d.then(() => this._host.requestUpdate());
    return { ...(d && !(d instanceof Promise) ? d : en), ...this._host.strings };
  }
}
