/** The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. */
const encoder = new TextEncoder();

export async function webhookSignature(key: Uint8Array, id: string, timestamp: number, body: string): Promise<string> {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- test/tsconfig.json compiles this file with DOM types too
  const k = await crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', k, encoder.encode(`${id}.${timestamp}.${body}`));
  return `v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`;
}
