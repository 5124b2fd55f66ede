-- Gasoline schema, version 4: network_waterfall rows come from the browser's own
-- view of every request (chrome.webRequest), so a row has a method, and a failed
-- request has Chrome's reason (net::ERR_NAME_NOT_RESOLVED, net::ERR_ABORTED, ...).
-- Both are filterable (observe `method`, `error`); the rest of a request (type,
-- frame, status line, server IP, redirect chain, times) is in `data`.
ALTER TABLE network_waterfall ADD COLUMN method TEXT;   -- GET | POST | ...; NULL on rows from resource timing alone
ALTER TABLE network_waterfall ADD COLUMN error TEXT;    -- Chrome's net::ERR_* reason; NULL when the request completed
CREATE INDEX network_waterfall_method ON network_waterfall (method, id);
