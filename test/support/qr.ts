/** Decodes the worker's QR modules (see worker/handoff/qr.ts) with jsQR, as a phone camera would read them. */
import jsQR from 'jsqr';

export function decodeQr(qr: { size: number; modules: string }): string | undefined {
  const bits = Buffer.from(qr.modules, 'base64');
  const scale = 4; // pixels per module, with a 4-module quiet zone
  const side = (qr.size + 8) * scale;
  const rgba = new Uint8ClampedArray(side * side * 4).fill(255);
  for (let i = 0; i < qr.size * qr.size; i++) {
    if (!(bits[i >> 3]! & (0x80 >> (i & 7)))) continue;
    const [x, y] = [i % qr.size, Math.floor(i / qr.size)];
    for (let dy = 0; dy < scale; dy++) {
      for (let dx = 0; dx < scale; dx++) {
        const p = (((y + 4) * scale + dy) * side + (x + 4) * scale + dx) * 4;
        rgba.fill(0, p, p + 3);
      }
    }
  }
  return jsQR(rgba, side, side)?.data;
}

/**
 * Decodes a PNG screenshot of a QR code with jsQR: the browser `page` (any
 * page without a CSP, e.g. about:blank) turns the PNG into pixels, as a
 * camera's frame would be, so no PNG library is needed.
 */
export async function decodeScreenshot(page: import('playwright-core').Page, png: Buffer): Promise<string | undefined> {
  const { width, height, pixels } = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    return { width: canvas.width, height: canvas.height, pixels: Array.from(ctx.getImageData(0, 0, canvas.width, canvas.height).data) };
  }, png.toString('base64'));
  return jsQR(Uint8ClampedArray.from(pixels), width, height)?.data;
}
