/**
 * Finding input echoed back: the strings a request carried, looked for in an
 * answer, its headers or a log line (the hardening suite and the property
 * fuzzer both ask it).
 */
import assert from 'node:assert/strict';

/** Every string in a value, objects and arrays walked (to a depth of 50). */
export function stringLeaves(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 50) return out;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringLeaves(v, out, depth + 1);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringLeaves(v, out, depth + 1);
  return out;
}

/** The strings of a value long enough (8 characters) that finding one is an echo, not chance: as sent, and as JSON escapes them. */
export const telltales = (value: unknown): string[] =>
  stringLeaves(value)
    .map((s) => s.trim())
    .filter((s) => [...s].length >= 8)
    .flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]);

/** Asserts that none of `needles` occurs in `haystack` (answer text, header values, log lines). */
export function assertNoLeak(haystack: string, needles: readonly string[], context: string): void {
  for (const n of needles) {
    if (n && haystack.includes(n)) assert.fail(`${context}: the answer repeats ${JSON.stringify(n.slice(0, 60))}`);
  }
}
