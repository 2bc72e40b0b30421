/** The idv vendor's settings' defaults that name its paths (worker/config.ts reads them; nothing else knows them). */

/** KYC_SEARCH_PATH's default: where entity search lives under `{base_url}`. */
export const DEFAULT_SEARCH_PATH = '/v2/kyc/entity/search';
