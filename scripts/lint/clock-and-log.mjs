// The ESLint rules that keep one clock and one logger in the worker and the
// sandbox. `Date.now()` is read only by the clocks (worker/lib/clock.ts, the
// sandbox's `clock` in sandbox/store.ts) and the entry points that build them,
// so a test that moves the clock moves every reader of the time. `console.*`
// is called only by worker/lib/log.ts (the sandbox, another vendor: sandbox/log.ts),
// the one place that keeps personal data
// and secrets out of log lines.

/** Files allowed to read the runtime's time directly. */
export const CLOCK_FILES = ['worker/lib/clock.ts', 'sandbox/store.ts', 'worker/entry/*.ts', 'sandbox/entry.ts'];
/** Files allowed to write to the console. */
export const LOG_FILES = ['worker/lib/log.ts', 'sandbox/log.ts'];

const SOURCES = ['worker/**/*.ts', 'sandbox/**/*.ts'];

/** The flat-config blocks for eslint.config.mjs. */
export function clockAndLogConfig() {
  return [
    {
      files: SOURCES,
      ignores: CLOCK_FILES,
      rules: {
        'no-restricted-properties': [
          'error',
          {
            object: 'Date',
            property: 'now',
            message: 'Take the time from the injected clock (worker/lib/clock.ts, c.var.clock, a `now` argument), not Date.now().',
          },
        ],
      },
    },
    {
      files: SOURCES,
      ignores: LOG_FILES,
      rules: { 'no-console': ['error'] },
    },
  ];
}
