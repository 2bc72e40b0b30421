-- The operator console's rollups (worker/ops/). Nothing personal: partner ids,
-- event names, short codes, counts, durations, verification ids.

-- Events already counted, by event id: a queue message delivered twice is
-- counted once. Kept 14 days (longer than a queue keeps a message).
CREATE TABLE IF NOT EXISTS ops_seen (
  event_id TEXT PRIMARY KEY,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ops_seen_at ON ops_seen (at);

-- Hourly counts per partner: `name` is the event type (or a facet of it, such
-- as `link.refused.field`), `dim` its value (channel, check status, reason,
-- "<operation> <outcome>", …; '' for none). `hour` = epoch seconds of the hour's
-- start (UTC). Kept 13 months.
CREATE TABLE IF NOT EXISTS ops_counts (
  partner_id TEXT NOT NULL,
  hour INTEGER NOT NULL,
  name TEXT NOT NULL,
  dim TEXT NOT NULL DEFAULT '',
  n INTEGER NOT NULL,
  PRIMARY KEY (partner_id, hour, name, dim)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ops_counts_hour ON ops_counts (hour);

-- Hourly distributions per partner (seconds to a final status, vendor and
-- webhook latency): how many values fell in each bucket (the value rounded
-- down to two significant digits). Kept 13 months.
CREATE TABLE IF NOT EXISTS ops_values (
  partner_id TEXT NOT NULL,
  hour INTEGER NOT NULL,
  metric TEXT NOT NULL,
  dim TEXT NOT NULL DEFAULT '',
  bucket INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (partner_id, hour, metric, dim, bucket)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ops_values_hour ON ops_values (hour);

-- Every webhook attempt (30 days).
CREATE TABLE IF NOT EXISTS ops_webhook_attempts (
  event_id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  verification_id TEXT NOT NULL,
  type TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  status INTEGER,
  failure TEXT,
  ms INTEGER NOT NULL,
  result TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ops_webhook_attempts_at ON ops_webhook_attempts (at);
CREATE INDEX IF NOT EXISTS ops_webhook_attempts_verification ON ops_webhook_attempts (verification_id, type);

-- Each delivery (one per verification and event type) as its latest attempt
-- left it: delivered, gone, failed (another attempt is queued) or dead (30 days).
CREATE TABLE IF NOT EXISTS ops_webhook_deliveries (
  verification_id TEXT NOT NULL,
  type TEXT NOT NULL,
  partner_id TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  last_status INTEGER,
  last_failure TEXT,
  last_attempt_at INTEGER NOT NULL,
  PRIMARY KEY (verification_id, type)
);
CREATE INDEX IF NOT EXISTS ops_webhook_deliveries_state ON ops_webhook_deliveries (state, last_attempt_at);
