-- Gasoline schema, version 1.
-- One table per kind of event. `id` is the cursor agents page with: AUTOINCREMENT
-- makes it monotonic and never reused, also after trimming, clearing and restarts.
-- `data` holds, as a JSON object, every field the client sent that has no column.
-- `truncated` is NULL, or a JSON object {"field path": original length in bytes}
-- naming each string that was cut to the per-field cap.

-- One row per kind: its ring capacity (read by the trimming triggers) and the
-- highest id ever deleted from the middle of the ring (`gap_upto`; 0 = none).
-- While min(id) > gap_upto the ids are contiguous and count = max - min + 1.
CREATE TABLE kinds (
  kind      TEXT PRIMARY KEY,
  capacity  INTEGER NOT NULL CHECK (capacity > 0),
  gap_upto  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE tabs (
  tab_id     INTEGER PRIMARY KEY,
  url        TEXT,
  title      TEXT,
  last_seen  INTEGER NOT NULL            -- ms since epoch
);

CREATE TABLE vitals (
  tab_id      INTEGER PRIMARY KEY,
  url         TEXT,
  lcp         REAL,                      -- ms
  cls         REAL,
  inp         REAL,                      -- ms
  fcp         REAL,                      -- ms
  ttfb        REAL,                      -- ms
  updated_at  INTEGER NOT NULL,          -- ms since epoch
  data        TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE settings (
  key    TEXT PRIMARY KEY,
  value  TEXT
) WITHOUT ROWID;


INSERT INTO kinds (kind, capacity) VALUES ('logs', 50000);
CREATE TABLE logs (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  tab_id       INTEGER,                 -- Chrome tab id; NULL when unknown
  ts           INTEGER NOT NULL,        -- event time, ms since epoch (client clock)
  received_at  INTEGER NOT NULL,        -- ms since epoch (server clock)
  level        TEXT NOT NULL,           -- log | info | warn | error | debug
  message      TEXT NOT NULL,
  source       TEXT,                    -- console | exception | unhandledrejection
  url          TEXT,
  data         TEXT NOT NULL DEFAULT '{}',
  truncated    TEXT
);
CREATE INDEX logs_tab ON logs (tab_id, id);
CREATE INDEX logs_level ON logs (level, id);
-- Ring buffer: keep ids in (NEW.id - capacity, NEW.id]. Id arithmetic is the only
-- trigger form whose cost does not grow with the capacity.
CREATE TRIGGER logs_ring AFTER INSERT ON logs BEGIN
  DELETE FROM logs WHERE id <= NEW.id - (SELECT capacity FROM kinds WHERE kind = 'logs');
END;
-- Rows deleted from the head (trimming, clearing) keep ids contiguous; any other
-- delete leaves a gap, recorded so that offsets stop using id arithmetic.
CREATE TRIGGER logs_gap AFTER DELETE ON logs WHEN OLD.id > (SELECT min(id) FROM logs) BEGIN
  UPDATE kinds SET gap_upto = max(gap_upto, OLD.id) WHERE kind = 'logs';
END;

INSERT INTO kinds (kind, capacity) VALUES ('network_waterfall', 20000);
CREATE TABLE network_waterfall (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  tab_id       INTEGER,                 -- Chrome tab id; NULL when unknown
  ts           INTEGER NOT NULL,        -- event time, ms since epoch (client clock)
  received_at  INTEGER NOT NULL,        -- ms since epoch (server clock)
  url            TEXT NOT NULL,
  initiator_type TEXT,                  -- fetch | xmlhttprequest | script | img | ...
  status         INTEGER,               -- responseStatus where the browser gives it
  duration       REAL,                  -- ms
  data         TEXT NOT NULL DEFAULT '{}',
  truncated    TEXT
);
CREATE INDEX network_waterfall_tab ON network_waterfall (tab_id, id);
-- Ring buffer: keep ids in (NEW.id - capacity, NEW.id]. Id arithmetic is the only
-- trigger form whose cost does not grow with the capacity.
CREATE TRIGGER network_waterfall_ring AFTER INSERT ON network_waterfall BEGIN
  DELETE FROM network_waterfall WHERE id <= NEW.id - (SELECT capacity FROM kinds WHERE kind = 'network_waterfall');
END;
-- Rows deleted from the head (trimming, clearing) keep ids contiguous; any other
-- delete leaves a gap, recorded so that offsets stop using id arithmetic.
CREATE TRIGGER network_waterfall_gap AFTER DELETE ON network_waterfall WHEN OLD.id > (SELECT min(id) FROM network_waterfall) BEGIN
  UPDATE kinds SET gap_upto = max(gap_upto, OLD.id) WHERE kind = 'network_waterfall';
END;

INSERT INTO kinds (kind, capacity) VALUES ('network_bodies', 2000);
CREATE TABLE network_bodies (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  tab_id       INTEGER,                 -- Chrome tab id; NULL when unknown
  ts           INTEGER NOT NULL,        -- event time, ms since epoch (client clock)
  received_at  INTEGER NOT NULL,        -- ms since epoch (server clock)
  method       TEXT NOT NULL,
  url          TEXT NOT NULL,
  status       INTEGER,
  duration     REAL,                    -- ms
  data         TEXT NOT NULL DEFAULT '{}',
  truncated    TEXT
);
CREATE INDEX network_bodies_tab ON network_bodies (tab_id, id);
CREATE INDEX network_bodies_method ON network_bodies (method, id);
-- Ring buffer: keep ids in (NEW.id - capacity, NEW.id]. Id arithmetic is the only
-- trigger form whose cost does not grow with the capacity.
CREATE TRIGGER network_bodies_ring AFTER INSERT ON network_bodies BEGIN
  DELETE FROM network_bodies WHERE id <= NEW.id - (SELECT capacity FROM kinds WHERE kind = 'network_bodies');
END;
-- Rows deleted from the head (trimming, clearing) keep ids contiguous; any other
-- delete leaves a gap, recorded so that offsets stop using id arithmetic.
CREATE TRIGGER network_bodies_gap AFTER DELETE ON network_bodies WHEN OLD.id > (SELECT min(id) FROM network_bodies) BEGIN
  UPDATE kinds SET gap_upto = max(gap_upto, OLD.id) WHERE kind = 'network_bodies';
END;

INSERT INTO kinds (kind, capacity) VALUES ('websocket_events', 50000);
CREATE TABLE websocket_events (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  tab_id       INTEGER,                 -- Chrome tab id; NULL when unknown
  ts           INTEGER NOT NULL,        -- event time, ms since epoch (client clock)
  received_at  INTEGER NOT NULL,        -- ms since epoch (server clock)
  connection_id TEXT NOT NULL,
  event         TEXT NOT NULL,          -- open | message | close | error
  direction     TEXT,                   -- incoming | outgoing (messages)
  url           TEXT,
  data         TEXT NOT NULL DEFAULT '{}',
  truncated    TEXT
);
CREATE INDEX websocket_events_tab ON websocket_events (tab_id, id);
CREATE INDEX websocket_events_connection_id ON websocket_events (connection_id, id);
-- Ring buffer: keep ids in (NEW.id - capacity, NEW.id]. Id arithmetic is the only
-- trigger form whose cost does not grow with the capacity.
CREATE TRIGGER websocket_events_ring AFTER INSERT ON websocket_events BEGIN
  DELETE FROM websocket_events WHERE id <= NEW.id - (SELECT capacity FROM kinds WHERE kind = 'websocket_events');
END;
-- Rows deleted from the head (trimming, clearing) keep ids contiguous; any other
-- delete leaves a gap, recorded so that offsets stop using id arithmetic.
CREATE TRIGGER websocket_events_gap AFTER DELETE ON websocket_events WHEN OLD.id > (SELECT min(id) FROM websocket_events) BEGIN
  UPDATE kinds SET gap_upto = max(gap_upto, OLD.id) WHERE kind = 'websocket_events';
END;

INSERT INTO kinds (kind, capacity) VALUES ('actions', 10000);
CREATE TABLE actions (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  tab_id       INTEGER,                 -- Chrome tab id; NULL when unknown
  ts           INTEGER NOT NULL,        -- event time, ms since epoch (client clock)
  received_at  INTEGER NOT NULL,        -- ms since epoch (server clock)
  type         TEXT NOT NULL,           -- click | input | change | submit | keydown | navigation ...
  selector     TEXT,
  url          TEXT,
  data         TEXT NOT NULL DEFAULT '{}',
  truncated    TEXT
);
CREATE INDEX actions_tab ON actions (tab_id, id);
CREATE INDEX actions_type ON actions (type, id);
-- Ring buffer: keep ids in (NEW.id - capacity, NEW.id]. Id arithmetic is the only
-- trigger form whose cost does not grow with the capacity.
CREATE TRIGGER actions_ring AFTER INSERT ON actions BEGIN
  DELETE FROM actions WHERE id <= NEW.id - (SELECT capacity FROM kinds WHERE kind = 'actions');
END;
-- Rows deleted from the head (trimming, clearing) keep ids contiguous; any other
-- delete leaves a gap, recorded so that offsets stop using id arithmetic.
CREATE TRIGGER actions_gap AFTER DELETE ON actions WHEN OLD.id > (SELECT min(id) FROM actions) BEGIN
  UPDATE kinds SET gap_upto = max(gap_upto, OLD.id) WHERE kind = 'actions';
END;

INSERT INTO kinds (kind, capacity) VALUES ('extension_logs', 5000);
CREATE TABLE extension_logs (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  tab_id       INTEGER,                 -- Chrome tab id; NULL when unknown
  ts           INTEGER NOT NULL,        -- event time, ms since epoch (client clock)
  received_at  INTEGER NOT NULL,        -- ms since epoch (server clock)
  level        TEXT NOT NULL,
  message      TEXT NOT NULL,
  data         TEXT NOT NULL DEFAULT '{}',
  truncated    TEXT
);
CREATE INDEX extension_logs_tab ON extension_logs (tab_id, id);
CREATE INDEX extension_logs_level ON extension_logs (level, id);
-- Ring buffer: keep ids in (NEW.id - capacity, NEW.id]. Id arithmetic is the only
-- trigger form whose cost does not grow with the capacity.
CREATE TRIGGER extension_logs_ring AFTER INSERT ON extension_logs BEGIN
  DELETE FROM extension_logs WHERE id <= NEW.id - (SELECT capacity FROM kinds WHERE kind = 'extension_logs');
END;
-- Rows deleted from the head (trimming, clearing) keep ids contiguous; any other
-- delete leaves a gap, recorded so that offsets stop using id arithmetic.
CREATE TRIGGER extension_logs_gap AFTER DELETE ON extension_logs WHEN OLD.id > (SELECT min(id) FROM extension_logs) BEGIN
  UPDATE kinds SET gap_upto = max(gap_upto, OLD.id) WHERE kind = 'extension_logs';
END;
