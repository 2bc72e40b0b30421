/**
 * What survives leaving the page for the hosted flow: the session token in
 * `sessionStorage` (per tab, gone with the tab). Never names or birth dates.
 */
const STORAGE_KEY = 'kyc-onboard:session';

export interface Stored {
  session: string;
  /** The masked number a link was texted to. */
  phone?: string;
  /** "Continue on my phone": the worker's single-use link for the phone, and its QR code. */
  handoff?: { url: string; qr: { size: number; modules: string } };
  /** The code its phone asks for at the end (not personal: it only proves holding this screen). */
  code?: string;
  /** This device's hosted flow ("Continue the check" after Back, while the link is valid). */
  url?: string;
  /** The link's expiry (ISO 8601, on this browser's clock): how long a person may still finish. */
  urlExpiry?: string;
  /** What the vendor's hosted flow appends to the return URL (the link answer's `returnKeys`). */
  returnKeys?: string[];
}

export function readStored(): Stored | undefined {
  try {
    const s = JSON.parse(sessionStorage.getItem(STORAGE_KEY)!) as Stored | null;
    return s?.session ? s : undefined;
  } catch {
    return undefined;
  }
}

export function writeStored(v?: Stored): void {
  try {
    if (v) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(v));
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage blocked (sandboxed frame, privacy mode): the return path then says "go back where you started".
  }
}
