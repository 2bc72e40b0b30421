/**
 * Absolute http(s) URLs, the one check the worker and the sandbox share
 * (origins, return and redirect URLs, webhook targets).
 */

/** `value` parsed as an absolute http(s) URL, or undefined. */
export function httpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `value` is an absolute http(s) URL. */
export const isHttpUrl = (value: string): boolean => httpUrl(value) !== undefined;
