/**
 * IPv6 and the per-client limit (finding 3): a client holding a
 * /56 or a /48 has 256 or 65,536 /64s, each with its own RL_IP budget; the
 * second, looser limit per /48 (RL_IP_48) caps the allocation as a whole.
 * The bindings here count like Cloudflare's (fixed window, per key), so the
 * test is about which keys the worker counts on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Env } from '../../worker/lib/env';
import { ipKey } from '../../worker/lib/limits';
import { baseEnv, call, okVendor, startHarness, stopHarness, vendor } from './harness';

before(startHarness);
after(stopHarness);

/** A rate-limit binding counting per key in one window. */
function counting(limit: number) {
  const counts = new Map<string, number>();
  return { limit: async ({ key }: { key: string }) => ({ success: (counts.set(key, (counts.get(key) ?? 0) + 1).get(key) ?? 0) <= limit }) };
}

describe('IPv6 rate limits', () => {
  it('keys /64 and /48 on the address prefix, and IPv4 on the address', () => {
    assert.equal(ipKey('2001:db8:1234:5600:aaaa::1'), '2001:db8:1234:5600::/64');
    assert.equal(ipKey('2001:db8:1234:5601:bbbb::2'), '2001:db8:1234:5601::/64');
    assert.equal(ipKey('2001:db8:1234:5600:aaaa::1', 48), '2001:db8:1234::/48');
    assert.equal(ipKey('2001:0db8:1234:ff00::9', 48), '2001:db8:1234::/48');
    assert.equal(ipKey('203.0.113.7', 48), '203.0.113.7');
  });

  it('lets the /64s of one /48 through at most RL_IP_48 times a window, and another /48 still through', async () => {
    vendor(...okVendor);
    const env: Env = { ...baseEnv, RL_IP: counting(60), RL_IP_48: counting(120) };
    let passed = 0;
    // Three /64s of one /56, 60 requests each: 180 asked, the /48 limit lets 120 through.
    for (const subnet of ['5600', '5601', '56ff']) {
      for (let i = 0; i < 60; i++) {
        const res = await call('/api/ruok', { headers: { 'CF-Connecting-IP': `2001:db8:1234:${subnet}::${(i + 1).toString(16)}` } }, env);
        if (res.status === 200) passed++;
        else assert.equal(res.status, 429);
      }
    }
    assert.equal(passed, 120);
    const other = await call('/api/ruok', { headers: { 'CF-Connecting-IP': '2001:db8:9999:1::1' } }, env);
    assert.equal(other.status, 200, 'another /48 has its own budget');
    const v4 = await call('/api/ruok', { headers: { 'CF-Connecting-IP': '203.0.113.7' } }, env);
    assert.equal(v4.status, 200, 'IPv4 is not counted per /48');
  });
});
