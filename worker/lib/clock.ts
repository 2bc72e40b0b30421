/**
 * The worker's one clock: milliseconds since the epoch. Code that needs the
 * time takes it from here, from `c.var.clock` on a request (createApp's
 * `clock`, so a test can pass its own), or as a `now` argument, never from
 * `Date.now()` directly, so that time is one injectable thing.
 */
export type Clock = () => number;

/** The runtime's clock (in workerd it advances with I/O, not during a computation). */
export const systemClock: Clock = () => Date.now();
