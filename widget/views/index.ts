/**
 * The view for each state. The form and `checking` are here; the other
 * states are reached only by the run, whose chunk brings their views
 * (`Flow.views`, with a fuller `checking`: why it is slow, offline). Until it has, a fault can only be that it could not be
 * fetched: `offline` says so.
 */
import { html } from 'lit';
import type { FlowApi as Flow } from '../flow-api.js';
import { checking } from './checking.js';
import { form } from './form.js';
import type { View, ViewContext } from './view.js';

const offline: View = ({ flow, t }) =>
  html`<div class="alert panel" part="alert" role="alert" tabindex="-1" id="alert">
    <p>${t.errNetwork}</p>
    <div class="actions"><button type="button" part="button" @click=${flow.retry}>${t.retry}</button></div>
  </div>`;

const pick = (flow: Flow): View | undefined => (flow.notice ? flow.views.notice : flow.leftFlow ? flow.views.left : flow.views[flow.state]);

/** What to show for the flow's state. A fault while submitting keeps the form, the fault above it. */
export const view: View = (c: ViewContext) => {
  const { flow } = c;
  const fault = flow.state === 'error' ? (flow.views.error ?? offline) : undefined;
  return flow.showsForm() ? form(c, fault) : (pick(flow) ?? fault ?? checking)(c);
};
