/**
 * English, the strings the form needs before anything else is loaded: they
 * are in the entry. The rest (widget/i18n/en/run.ts) comes with the run chunk,
 * which brings the views that use them (widget/locale.ts: `addEnglish`).
 * widget/i18n/en.ts joins both: the source of every translation.
 */
export default {
  givenName: 'Given name (if you have one)',
  middleName: 'Middle name',
  familyName: 'Family name',
  optional: 'Optional',
  dateOfBirth: 'Date of birth',
  dobDay: 'Day',
  dobMonth: 'Month',
  dobYear: 'Year',
  countryCode: 'Country code',
  mobileNumber: 'Mobile number',
  consent: 'I agree to an identity check against official records.',
  deliveryLegend: 'How do you want to continue?',
  continueHere: 'Continue on this device',
  continuePhone: 'Continue on my phone',
  textMe: 'Text me a link',
  submit: 'Verify my identity',
  submitting: 'Please wait…',
  errTurnstile: 'Please complete the security check.',
  checking: 'Checking your result…',
  errNetwork: 'Can’t connect. Check your connection and try again.',
  retry: 'Try again',
  intro: 'We check your name, date of birth and mobile number with our verification partner. It takes about 2 minutes.',
  privacyLink: 'How your data is used',
};
