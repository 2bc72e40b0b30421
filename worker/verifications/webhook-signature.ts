/** The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. */
const encoder = new TextEncoder();

export async function webhookSignature(key: Uint8Array, id: string, timestamp: number, body: string): Promise<string> {
  const k = await crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', k, encoder.encode(`${id}.${timestamp}.${body}`));
  return `v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`;
}
