/**
 * What `npm run bench` writes (bench/results/*.json): every item's result or
 * why it could not be measured. Beside the report (report.ts reads it,
 * run.ts fills it, compare.ts compares two), importing only the items' types.
 */
import type { E2eResult } from './e2e';
import type { FailoverResult } from './failover';
import type { OverheadResult } from './overhead';
import type { OutcomesResult } from './outcomes';
import type { OpsBenchResult } from './ops';
import type { PollingResult } from './polling';
import type { WidgetSizeResult, WorkerSizeResult } from './size';
import type { StartResult } from './start';

/** One measurement, or why it could not be made. */
export type Outcome<T> = T | { error: string };

/** What `npm run bench` writes (bench/results/*.json). */
export interface BenchResults {
  date: string;
  mode: 'full' | 'quick';
  /** The items asked for (`--only`), when not all. */
  only?: string[];
  durationS: number;
  machine: Record<string, unknown>;
  notes: string[];
  items: {
    widgetSize?: Outcome<WidgetSizeResult>;
    widgetStart?: Outcome<StartResult>;
    workerOverhead?: Outcome<OverheadResult>;
    workerSize?: Outcome<WorkerSizeResult>;
    endToEnd?: Outcome<E2eResult>;
    outcomes?: Outcome<OutcomesResult>;
    polling?: Outcome<PollingResult>;
    ops?: Outcome<OpsBenchResult>;
    failover?: Outcome<FailoverResult>;
  };
  budgets: { widgetGzip?: boolean; workerGzip?: boolean };
  /** Items that could not measure (each fails the run). */
  failed: string[];
}
