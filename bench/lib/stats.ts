/** Small statistics and formatting helpers for the benchmark. */

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i]!;
}

/** Median, spread and count of a sample, rounded for the report. */
export function summary(xs: number[], digits = 2) {
  return {
    median: round(median(xs), digits),
    p10: round(percentile(xs, 10), digits),
    p90: round(percentile(xs, 90), digits),
    min: round(Math.min(...xs), digits),
    max: round(Math.max(...xs), digits),
    n: xs.length,
  };
}

export function round(x: number, digits = 2): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function ratio(a: number, b: number, digits = 2): number {
  return b === 0 ? NaN : round(a / b, digits);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Rejects when `p` takes longer than `ms` (every wait in the bench is bounded). */
export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, fail) => {
        timer = setTimeout(() => fail(new Error(`${what}: no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export function ms(x: number): string {
  return x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(2)} ms`;
}

export function pct(x: number): string {
  return `${(x * 100).toFixed(0)}%`;
}
