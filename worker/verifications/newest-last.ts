/**
 * Writes of one verification's index row, one at a time and newest last: a
 * change made while a row is being written waits for that write, and only the
 * newest of the changes that came meanwhile is written next (the ones between
 * are already out of date). Without it two overlapping D1 writes could land
 * out of order and leave the older row. `stop` is for the delete: nothing owed
 * is written any more, and it returns once a write under way has landed, so a
 * row never lands after the delete that follows.
 */
export class NewestLast<T> {
  private pending: T | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly write: (value: T) => Promise<void>) {}

  /** `value` is the newest to write; the next `flush` writes it (or a newer one). */
  owe(value: T): void {
    this.pending = value;
  }

  /** Whether a newer value waits behind the write under way. */
  get owing(): boolean {
    return this.pending !== undefined;
  }

  /** Writes what is owed; with a write under way, its promise (which then writes what came meanwhile). */
  flush(): Promise<void> {
    this.running ??= (async () => {
      await Promise.resolve(); // the `finally` below must run after `this.running` is assigned, even with nothing to write
      try {
        for (let v = this.pending; v !== undefined; v = this.pending) {
          this.pending = undefined;
          await this.write(v);
        }
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Drops what is owed, and waits for a write under way to land. */
  async stop(): Promise<void> {
    this.pending = undefined;
    await this.running;
  }
}
