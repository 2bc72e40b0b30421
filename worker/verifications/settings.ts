/** The outcome settings by their contract names, read in one place with their defaults and bounds. */
import { list, type Env } from '../lib/env';
import type { PollSchedule } from './verification';

const int = (raw: string | undefined, fallback: number, min: number, max: number) => {
  const n = Number(raw);
  return Number.isFinite(n) && raw?.trim() ? Math.min(max, Math.max(min, Math.round(n))) : fallback;
};

/** How often the vendor may be asked about one verification (default 30 s, at least 5). */
export const resultPollSeconds = (env: Env) => int(env.RESULT_POLL_SECONDS, 30, 5, 3600);
/** The longest wait between polls while no one waits or the vendor fails (default 900 s, never below RESULT_POLL_SECONDS). */
export const resultPollMaxSeconds = (env: Env) => Math.max(resultPollSeconds(env), int(env.RESULT_POLL_MAX_SECONDS, 900, 5, 86_400));
/** The polling schedule of one verification, in ms ("Polling budget"). */
export const pollSchedule = (env: Env): PollSchedule => ({
  pollMs: resultPollSeconds(env) * 1000,
  maxMs: resultPollMaxSeconds(env) * 1000,
});
/** How long after the link's expiry a verification is still polled (default 900 s). */
export const verificationGraceSeconds = (env: Env) => int(env.VERIFICATION_GRACE_SECONDS, 900, 0, 86_400);
export const webhookTimeoutMs = (env: Env) => int(env.WEBHOOK_TIMEOUT_MS, 15_000, 100, 60_000);

export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];

/** Seconds to wait before attempt n+1 after attempt n failed (index n−1). */
export function webhookRetrySchedule(env: Env): number[] {
  const parsed = list(env.WEBHOOK_RETRY_SCHEDULE).map(Number);
  return parsed.length && parsed.every((n) => Number.isFinite(n) && n >= 0)
    ? parsed.map((n) => Math.min(Math.round(n), 86_400))
    : DEFAULT_RETRY_SCHEDULE;
}

/** Attempts in all, the first included (default: the schedule's length + 1). */
export const webhookMaxAttempts = (env: Env) => int(env.WEBHOOK_MAX_ATTEMPTS, webhookRetrySchedule(env).length + 1, 1, 100);
