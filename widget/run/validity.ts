/**
 * Constraint validation mirrors what is shown (the form is `novalidate`): each input marked wrong carries its
 * error as its custom validity message, every other none. Errors exist only once the run is here (its rules, the
 * worker's answers), so this is the run's: a controller of the element, after each update.
 */
import type { FlowApi } from '../flow-api.js';

export function mirrorValidity(flow: FlowApi): void {
  const host = flow.host;
  host.addController({
    hostUpdated() {
      const errs = flow.visibleErrors();
      for (const input of host.renderRoot.querySelectorAll<HTMLInputElement>('form input')) {
        // The date of birth's parts share its error; only the parts it marks wrong (aria-invalid) carry it.
        const key = errs[(input.id.startsWith('dob') ? 'dateOfBirth' : input.id) as keyof typeof errs];
        input.setCustomValidity(key && input.getAttribute('aria-invalid') === 'true' ? flow.locale.t[key] : '');
      }
    },
  });
}
