/**
 * The handoff URL as a QR code, encoded here (uqr) so the widget ships no
 * encoder: it gets the modules as data and draws them as an inline SVG.
 * `modules` is the matrix row by row, one bit per module (1 = dark),
 * most significant bit first, base64: about 230 bytes for a 41 × 41 code.
 */
import { encode } from 'uqr';

export interface QrModules {
  /** Modules per side (no quiet zone: the widget adds it). */
  size: number;
  modules: string;
}

export function qrModules(text: string): QrModules {
  const { size, data } = encode(text, { ecc: 'M', border: 0 });
  const bits = new Uint8Array(Math.ceil((size * size) / 8));
  data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) bits[(y * size + x) >> 3]! |= 0x80 >> ((y * size + x) & 7);
    }),
  );
  return { size, modules: btoa(String.fromCharCode(...bits)) };
}
