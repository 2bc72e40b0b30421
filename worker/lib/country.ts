/**
 * A partner's default country (`DEFAULT_COUNTRY`, the registry's `defaultCountry`): the country whose calling code
 * the widget starts with when its language names no region. An ISO 3166-1 alpha-2 code in upper case that the
 * phone metadata knows, so it has a calling code the worker accepts.
 */
import { isSupportedCountry, type CountryCode, type MetadataJson } from 'libphonenumber-js/core';
import metadataJson from './phone-metadata.json';

const metadata = metadataJson as unknown as MetadataJson;

export const DEFAULT_COUNTRY_PROBLEM = 'must be an ISO 3166 alpha-2 country code with a calling code, such as DE';

/** Why `value` cannot be a default country, or undefined when it can. */
export const defaultCountryProblem = (value: string): string | undefined =>
  /^[A-Z]{2}$/.test(value) && isSupportedCountry(value as CountryCode, metadata) ? undefined : DEFAULT_COUNTRY_PROBLEM;
