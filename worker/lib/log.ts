/**
 * The worker's one logger: a JSON line per event (Workers Logs and `wrangler
 * tail` read them). It is the place that keeps personal data and secrets out
 * of the logs: a line carries only the field names below (ids, counts, codes,
 * route patterns, setting names), each a number, a boolean or a short string,
 * so a caller cannot pass a body, a header, a query string, a person's
 * details or a secret by accident; a field the type allows but a caller
 * widened at run time is dropped, and strings are cut short.
 */

/** Every field a log line may have; a new one is added here, after asking whether it can carry anything personal. */
const FIELDS = [
  'requestId',
  'method',
  'route',
  'status',
  'durationMs',
  'vendorStatus',
  'vendor',
  'partner',
  'missing',
  'verificationId',
  'type',
  'count',
  'error',
  'detail',
  'lang',
  'rollups',
  'attempt',
  'attempts',
  'seen',
  'partnerId',
  'migration',
  'fix',
] as const;
export type LogField = (typeof FIELDS)[number];
export type LogValue = string | number | boolean | readonly string[] | undefined;
export type LogFields = Partial<Record<LogField, LogValue>>;

const ALLOWED: ReadonlySet<string> = new Set(FIELDS);
/** Longer strings are cut: ids, names and codes are short, so a long value is something else. */
const MAX_STRING = 200;

const clip = (v: string) => (v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}…` : v);

/** The line for `event`: only allowed fields of the allowed types (exported for the tests). */
export function logLine(level: 'info' | 'warn' | 'error', event: string, fields: LogFields = {}): string {
  const line: Record<string, unknown> = { level, event: clip(event) };
  for (const [k, v] of Object.entries(fields) as [string, unknown][]) {
    if (!ALLOWED.has(k) || v === undefined) continue;
    if (typeof v === 'number' || typeof v === 'boolean') line[k] = v;
    else if (typeof v === 'string') line[k] = clip(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) line[k] = v.slice(0, 20).map(clip);
  }
  return JSON.stringify(line);
}

export const log = {
  info: (event: string, fields?: LogFields) => console.log(logLine('info', event, fields)),
  warn: (event: string, fields?: LogFields) => console.error(logLine('warn', event, fields)),
  error: (event: string, fields?: LogFields) => console.error(logLine('error', event, fields)),
};
