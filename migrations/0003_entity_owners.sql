-- Which partner's verifications hold which vendor entity, so POST /v1/entities/search
-- shows an entity only to its owner and POST /v1/verifications takes an entityId only
-- from the partner's own verifications. One row per verification that has an entity,
-- written and deleted with its index row (gone after a redaction). The entity id is
-- kept as its SHA-256 (entity_key), never in clear: the id is the vendor's random
-- identifier, so its hash names it without telling it.
CREATE TABLE IF NOT EXISTS entity_owners (
  verification_id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  entity_key TEXT NOT NULL             -- hex SHA-256 of 'entity ' + the vendor's entity id
);
CREATE INDEX IF NOT EXISTS entity_owners_by_entity ON entity_owners (partner_id, entity_key);
