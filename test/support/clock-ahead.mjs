// Preload (`node --import ./test/support/clock-ahead.mjs`) that moves this
// process's wall clock forward by KYC_CLOCK_AHEAD_DAYS (default 366), so a
// run of the node suites shows they do not depend on today's date. Only
// `Date` moves: timers and `performance.now()` keep real time. workerd is
// another process and keeps the real clock; tests that talk to it derive
// their dates from today.
const shiftMs = Number(process.env.KYC_CLOCK_AHEAD_DAYS ?? 366) * 86_400_000;
const RealDate = globalThis.Date;

class AheadDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + shiftMs);
    else super(...args);
  }
  static now() {
    return RealDate.now() + shiftMs;
  }
}
globalThis.Date = AheadDate;
process.env.KYC_CLOCK_AHEAD = String(shiftMs);
