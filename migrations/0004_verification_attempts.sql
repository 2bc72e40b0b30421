-- Each verification's ended attempts in the index, so GET /v1/verifications lists
-- them as GET /v1/verifications/{id} shows them. A JSON array of
-- {"checkStatus": "...", "endedAt": <ms since the epoch>}, oldest first; NULL
-- while no attempt has ended. Nothing personal: a check status and a time.
-- Rows written before this migration get theirs at their next change.
ALTER TABLE verifications ADD COLUMN attempts TEXT;
