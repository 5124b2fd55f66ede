-- Gasoline schema, version 2: `tabs` and `vitals` are bounded like the rings, and
-- record the strings they cut like every other row.
--
-- Both tables hold one row per Chrome tab (upserted), so they grow with the number of
-- tabs ever seen. Their capacities live in `kinds` beside the rings' (rows 'tabs' and
-- 'vitals'); when a new tab's row makes a table exceed its capacity, the row seen
-- least recently goes. Each insert adds one row, so deleting one keeps the bound.

ALTER TABLE tabs ADD COLUMN truncated TEXT;     -- NULL, or {"field": original length in bytes}
ALTER TABLE vitals ADD COLUMN truncated TEXT;

INSERT INTO kinds (kind, capacity) VALUES ('tabs', 1000);
INSERT INTO kinds (kind, capacity) VALUES ('vitals', 1000);

CREATE INDEX tabs_last_seen ON tabs (last_seen, tab_id);
CREATE INDEX vitals_updated_at ON vitals (updated_at, tab_id);

-- Tables from version 1 may already hold more than the capacity.
DELETE FROM tabs WHERE tab_id IN
  (SELECT tab_id FROM tabs ORDER BY last_seen DESC, tab_id DESC LIMIT -1 OFFSET 1000);
DELETE FROM vitals WHERE tab_id IN
  (SELECT tab_id FROM vitals ORDER BY updated_at DESC, tab_id DESC LIMIT -1 OFFSET 1000);

CREATE TRIGGER tabs_ring AFTER INSERT ON tabs
WHEN (SELECT count(*) FROM tabs) > (SELECT capacity FROM kinds WHERE kind = 'tabs')
BEGIN
  DELETE FROM tabs WHERE tab_id = (SELECT tab_id FROM tabs ORDER BY last_seen, tab_id LIMIT 1);
END;

CREATE TRIGGER vitals_ring AFTER INSERT ON vitals
WHEN (SELECT count(*) FROM vitals) > (SELECT capacity FROM kinds WHERE kind = 'vitals')
BEGIN
  DELETE FROM vitals WHERE tab_id = (SELECT tab_id FROM vitals ORDER BY updated_at, tab_id LIMIT 1);
END;
