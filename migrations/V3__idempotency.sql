-- Gasoline schema, version 3: batch keys, so that a batch sent again is stored once.
-- The extension gives every batch an `Idempotency-Key`; the server remembers the
-- answer it gave to each of the most recent keys (bounded: the writer deletes
-- all but the newest keys after each insert, by id arithmetic) and answers a
-- batch whose key it remembers with that answer, storing nothing again. The key
-- lookup, the rows and the key are written in one transaction by the writer.
CREATE TABLE batch_keys (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  key         TEXT NOT NULL UNIQUE,     -- the client's Idempotency-Key
  target      TEXT NOT NULL,            -- what the batch was posted to: a kind, tabs or vitals
  digest      BLOB NOT NULL,            -- SHA-256 of the request body: the same key with another body is refused
  status      INTEGER NOT NULL,         -- the first answer's HTTP status
  body        TEXT NOT NULL,            -- the first answer's JSON body
  created_at  INTEGER NOT NULL          -- ms since epoch (server clock)
);
