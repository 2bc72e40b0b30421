// The one logger keeps personal data and secrets out of log lines: only the
// fields it knows, of the types it allows, and short.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { log, logLine, type LogFields } from '../../worker/lib/log';

describe('the logger', () => {
  it('writes one JSON line with the level, the event and the fields given', () => {
    const line = JSON.parse(logLine('error', 'poll_failed', { verificationId: 'vrf_1', count: 2, missing: ['KYC_API_KEY'] })) as object;
    assert.deepEqual(line, { level: 'error', event: 'poll_failed', verificationId: 'vrf_1', count: 2, missing: ['KYC_API_KEY'] });
  });

  it('drops a field it does not know and a value that is neither a number, a boolean, a string nor a list of strings', () => {
    const widened = {
      requestId: 'r-1',
      phone: '+61412345678',
      body: { name: 'Ada' },
      detail: { secret: 'whsec_x' },
      missing: [{ value: 'x' }],
    } as unknown as LogFields;
    assert.deepEqual(JSON.parse(logLine('info', 'request', widened)), { level: 'info', event: 'request', requestId: 'r-1' });
  });

  it('cuts long strings', () => {
    const line = JSON.parse(logLine('warn', 'x', { detail: 'a'.repeat(5000) })) as { detail: string };
    assert.ok(line.detail.length <= 201);
  });

  it('sends info to stdout and warnings and errors to stderr', (t) => {
    const out = t.mock.method(console, 'log', () => {});
    const err = t.mock.method(console, 'error', () => {});
    log.info('a');
    log.warn('b');
    log.error('c');
    assert.deepEqual(
      out.mock.calls.map((c) => c.arguments[0]),
      ['{"level":"info","event":"a"}'],
    );
    assert.deepEqual(
      err.mock.calls.map((c) => c.arguments[0]),
      ['{"level":"warn","event":"b"}', '{"level":"error","event":"c"}'],
    );
  });
});
