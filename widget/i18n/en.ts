/**
 * English strings, and the shape every translation must have. Placeholders in
 * braces (`{phone}`) are filled in by the widget. Partners override any of
 * these with the element's `strings` property.
 */
const en = {
  givenName: 'Given name',
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
  fixFields: 'Please check the marked fields.',
  errFamilyName: 'Enter your family name.',
  errName: 'At most 100 characters.',
  errNameChars: 'Remove the invisible or special characters from this name.',
  errDob: 'Enter a real past date, at most 120 years ago.',
  errDobDay: 'Enter a real day of the month.',
  errDobMonth: 'Enter a month from 1 to 12.',
  errDobYear: 'Enter the year with four digits.',
  errCode: 'Enter a code such as +61.',
  errNumber: 'Enter a valid mobile number.',
  errSms: 'We can’t text this number. You can continue on this device.',
  errConsent: 'Tick this box to continue.',
  errTurnstile: 'Please complete the security check.',
  redirecting: 'Opening the secure verification page…',
  continueLink: 'Continue to verification',
  handoffScan: 'Scan this code with your phone’s camera to continue there.',
  handoffQr: 'QR code of the link for your phone',
  handoffLink: 'Or open this link on your phone',
  copyLink: 'Copy link',
  copied: 'Link copied.',
  handoffWait: 'Keep this page open: it goes on here by itself when you finish on your phone.',
  phoneOpened: 'Opened on your phone. Finish there: this page goes on by itself.',
  handoffRenewed: 'The link had expired: this is a new one.',
  smsSent: 'We texted a link to {phone}. Open it on your phone.',
  smsCode: 'At the end, your phone asks for this code:',
  handoffCode: 'At the end, your phone asks for this code. Never give it to anyone:',
  smsExpires: 'It works until {time}.',
  smsExpired: 'The link has expired.',
  sendAgain: 'Send again',
  sendAgainWait:
    'Not sent again: too many texts. Try again in {seconds, plural, one {# second} other {# seconds}}; this page keeps waiting for your phone.',
  useThisDevice: 'Use this device instead',
  checking: 'Checking your result…',
  completeSuccess: 'Thanks, you’re verified.',
  completeOther: 'We could not verify you online. Thank you for your time.',
  noSession: 'You can close this page and go back to where you started.',
  errNetwork: 'Can’t connect. Check your connection and try again.',
  errRateLimited: 'Too many attempts. Please wait and try again.',
  errUnavailable: 'Verification is unavailable right now. Please try again.',
  errSession: 'Your session has expired. Please start again.',
  errClosed: 'This check has ended without a result. Please start again.',
  errPending: 'Your result isn’t ready yet. Please try again shortly.',
  errSetup: 'Verification can’t start on this page. Please contact the site.',
  errGeneric: 'Something went wrong. Please try again.',
  retry: 'Try again',
  startAgain: 'Start again',
};

export type Strings = typeof en;
export default en;

/**
 * Who vouches for a dictionary's words: `source` (English), `ai-drafted` (translated
 * by an AI model, not yet reviewed by a native speaker) or `native-reviewed`.
 * docs/embedding.md lists every language with it.
 */
export type Review = 'source' | 'ai-drafted' | 'native-reviewed';
export const review: Review = 'source';
