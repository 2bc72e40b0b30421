/**
 * Bindings whose absence loses something without failing a request: the
 * worker still answers, so nothing else would say so. Without EVENTS_QUEUE
 * the operator's events (the /ops console's counts, the vendor and webhook
 * figures) are dropped (issue 40 found them dropped with no log line).
 * Shown as `warnings` on `/api/ruok`, as a banner on `/ops`, and logged
 * (`events_queue_missing`, once per isolate) when an event is dropped.
 */
import type { Issue } from '../lib/errors';
import { bindingIfAny, type Env } from '../lib/env';

export function bindingWarnings(env: Pick<Env, 'EVENTS_QUEUE'>): Issue[] {
  return bindingIfAny(env, 'EVENTS_QUEUE')
    ? []
    : [{ issue: 'is not bound: operator events (the /ops console’s counts) are dropped', issueLocation: 'EVENTS_QUEUE' }];
}
