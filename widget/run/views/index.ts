/**
 * Views of the states only the run reaches, one file each in `views/`. Lit's
 * `html` comes in `Deps` (see `Flow.load()`): importing lit here would split
 * it out of the entry. The buttons that act on the run (`RunActions`) come
 * from the run itself. A new state's view goes here too.
 */
import type { Deps } from '../../flow-api.js';
import type { KycState } from '../../state.js';
import type { View } from '../../views/view.js';
import type { RunActions } from '../actions.js';
import { alertView } from './alert.js';
import { complete } from './complete.js';
import { handoff } from './handoff.js';
import { attempt } from './attempt.js';
import { checking } from './checking.js';
import { left } from './left.js';
import { notice } from './notice.js';
import { redirecting } from './redirecting.js';
import { smsSent } from './sms-sent.js';

export const runViews = (d: Deps, a: RunActions): Partial<Record<KycState | 'notice' | 'left' | 'attempt', View>> => ({
  attempt: attempt(d),
  left: left(d, a),
  redirecting: redirecting(d),
  checking: checking(d),
  handoff: handoff(d, a),
  'sms-sent': smsSent(d, a),
  complete: complete(d),
  notice: notice(d),
  error: alertView(d, a),
});
