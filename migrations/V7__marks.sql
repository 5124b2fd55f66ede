-- Gasoline schema, version 7: named marks (configure action=mark). A mark is a
-- moment an agent names ("before-fix"): the server's time and every kind's
-- last issued id then, so that "since the mark" and "before the mark" are exact
-- id ranges however the page's clock runs. Set through the writer; a name set
-- again moves its mark. Bounded: only the newest 1,000 marks are kept. Not
-- telemetry: `clear` leaves them (ids never restart, so they stay true).
CREATE TABLE marks (
  name     TEXT PRIMARY KEY,
  ts       INTEGER NOT NULL,   -- ms since epoch (server clock)
  cursors  TEXT NOT NULL       -- JSON {"logs": id, "network_waterfall": id, ...}: the last id issued per kind
);
CREATE INDEX marks_by_ts ON marks (ts);
