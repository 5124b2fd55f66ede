-- Gasoline schema, version 5: (tab_id, ts) indexes where observe looks things up
-- by a tab's time rather than by id: an error's context (the failed requests and
-- the last action just before it) and a tab's latest navigation (since_navigation).
CREATE INDEX network_bodies_tab_ts ON network_bodies (tab_id, ts);
CREATE INDEX network_waterfall_tab_ts ON network_waterfall (tab_id, ts);
CREATE INDEX actions_tab_ts ON actions (tab_id, ts);
