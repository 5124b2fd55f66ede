-- Gasoline schema, version 6: the capture state the extension reports (PUT /capture):
-- the Chrome match patterns of the sites it captures, whether capture is paused,
-- the tabs captured in depth. One row, replaced by each report and kept across
-- restarts; every observe answer carries it, so that an agent knows what can be
-- seen and how to see more. Not telemetry: `clear` leaves it.
CREATE TABLE capture (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  state        TEXT NOT NULL,     -- JSON: {"origins":[...],"paused":bool,"deep_tabs":[...],"server_origin":...}
  reported_at  INTEGER NOT NULL   -- ms since epoch (server clock)
);
