//! One request, counted once. A fetch or XHR the page made is stored twice: its row in
//! `network_waterfall` and its headers and bodies in `network_bodies`. Readers that count
//! requests over both kinds (compare, the failed requests an errors answer mentions) count
//! the waterfall row and leave out a body row that has one.
//!
//! A body row has a waterfall row when the waterfall holds a row of the same tab that
//! deep mode joined to it (the same `requestId`), or one of the same method and URL
//! that started within [`SAME_START_MS`] of it: the extension stamps a request's row
//! and its body with when the request started.

/// How far apart (ms) the starts of a body row and the waterfall row of the same request
/// may be: the two stamps come from the same start, rounded, or from the page's clock and
/// the browser's.
pub const SAME_START_MS: i64 = 50;

/// How far apart (ms) a body row and a waterfall row carrying the same `requestId` may
/// start: bounds the rows the join reads (the `(tab_id, ts)` index), not the match.
pub const SAME_ID_MS: i64 = 2_000;

/// The SQL condition, over a row of `network_bodies` (named by its table), that no
/// `network_waterfall` row is the same request: the body rows that count as requests of
/// their own.
pub fn body_alone_sql() -> String {
    format!(
        "NOT EXISTS (SELECT 1 FROM network_waterfall w \
         WHERE w.tab_id IS network_bodies.tab_id \
         AND w.ts BETWEEN network_bodies.ts - {SAME_ID_MS} AND network_bodies.ts + {SAME_ID_MS} \
         AND ((abs(w.ts - network_bodies.ts) <= {SAME_START_MS} AND w.url = network_bodies.url \
               AND upper(coalesce(w.method, 'GET')) = upper(network_bodies.method)) \
              OR json_extract(w.data, '$.requestId') = json_extract(network_bodies.data, '$.requestId')))"
    )
}
