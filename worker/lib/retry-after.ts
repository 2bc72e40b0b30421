/**
 * A `Retry-After` header in seconds (RFC 9110: a number of seconds or an
 * HTTP date), at most a day; undefined when absent or unreadable. A partner's
 * receiver (webhook retries) and the vendor (its 429 on a link or a poll)
 * both send one.
 */
export function retryAfterSeconds(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value) : (Date.parse(value) - now) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, Math.min(Math.ceil(seconds), 86_400)) : undefined;
}
