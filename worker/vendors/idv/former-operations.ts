/**
 * The operator's vendor calls first named two operations in the idv vendor's
 * words (its link path, its health check). Rows counted then are still in D1
 * (`ops_counts`, `ops_values`, kept 13 months): /ops reads them as our names
 * (`ops/events.ts` `operationName`). A migration renaming them would be data
 * only, which the schema check (`lib/d1-schema.ts`) cannot see missing, so the
 * reading stays here, with the vendor it came from (docs/decisions.md).
 */
export const FORMER_OPERATIONS: Readonly<Record<string, 'vendor-link' | 'vendor-health'>> = {
  'onboarding-url': 'vendor-link',
  ruok: 'vendor-health',
};
