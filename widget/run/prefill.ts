/** The partner's `prefill`: its values go into the fields the person has not typed in. */
import type { FlowApi } from '../flow-api.js';

type Filled = 'givenName' | 'middleName' | 'familyName' | 'dobDay' | 'dobMonth' | 'dobYear' | 'phoneNumber';

/** Put the `prefill` values into the fields the person has not typed in (only while the form shows). */
export function fill(flow: FlowApi): void {
  const p = flow.host.prefill;
  if (!p || !flow.showsForm()) return;
  const v = flow.values;
  const put = (k: Filled, x?: string) => {
    if (typeof x === 'string' && x && !flow.typed.has(k)) v[k] = x;
  };
  put('givenName', p.name?.givenName);
  put('middleName', p.name?.middleName);
  put('familyName', p.name?.familyName);
  const dob = /^(\d{4})-(\d{2})-(\d{2})$/.exec(p.dateOfBirth ?? '');
  if (dob) {
    put('dobDay', String(Number(dob[3])));
    put('dobMonth', String(Number(dob[2])));
    put('dobYear', dob[1]);
  }
  // The country code has a default: the prefill's wins while no number is typed.
  if (typeof p.phone?.code === 'string' && p.phone.code && !flow.typed.has('phoneNumber') && !flow.typed.has('phoneCode'))
    v.phoneCode = p.phone.code;
  put('phoneNumber', p.phone?.number);
  flow.host.requestUpdate();
}
