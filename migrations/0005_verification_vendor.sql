-- Which vendor each verification is with (docs/vendors.md): `idv` or `stripe`,
-- recorded at its first link and never changed. Rows written before this
-- migration, and verifications made before there was a choice, are idv's (the
-- default); a row gets its own value at its next change. Nothing personal: a
-- vendor's id. The console's per-vendor webhook deliveries join on it.
ALTER TABLE verifications ADD COLUMN vendor TEXT NOT NULL DEFAULT 'idv';
