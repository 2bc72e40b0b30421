-- The verification index (binding DB): one row per verification, per partner,
-- written by the verification's Durable Object on every state change and
-- deleted with it when its retention ends. It serves GET /v1/verifications
-- (newest first, by customerRef and status) and the console. Nothing personal:
-- no name, date of birth, phone number or vendor entity id; customer_ref is the
-- partner's own account reference (forgotten by POST /v1/…/redact).
CREATE TABLE IF NOT EXISTS verifications (
  id TEXT PRIMARY KEY,                 -- vrf_ + ULID (sorts by creation time)
  partner_id TEXT NOT NULL,
  customer_ref TEXT,                   -- NULL once redacted, or when none was given
  customer_ref_source TEXT NOT NULL,   -- 'server' (/v1) or 'page' (customer-ref on the page)
  status TEXT NOT NULL,                -- created | open | final | expired | canceled
  check_status TEXT,                   -- CHECKING or a final check status; NULL before a link
  livemode INTEGER NOT NULL,           -- 0 while the sandbox is the vendor
  created_at INTEGER NOT NULL,         -- ms since the epoch, UTC
  link_created_at INTEGER,
  final_at INTEGER,
  ended_at INTEGER,                    -- final, expired or canceled
  expires_at INTEGER NOT NULL,
  redacted INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS verifications_by_partner ON verifications (partner_id, id DESC);
CREATE INDEX IF NOT EXISTS verifications_by_ref ON verifications (partner_id, customer_ref, id DESC);
CREATE INDEX IF NOT EXISTS verifications_by_status ON verifications (partner_id, status, id DESC);
