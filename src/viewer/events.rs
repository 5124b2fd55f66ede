//! `GET /api/events`: a Server-Sent Events stream of where each ring stands.
//!
//! Each event (`event: cursors`) says, per kind, the highest id issued and the
//! rows kept; its `id:` is the cursors as `logs=12,network_waterfall=40,…`, so a
//! browser that reconnects (after a server restart too) sends it back as
//! `Last-Event-ID`. The stream carries no rows: the page fetches the rows after
//! its own cursors through `/api/rows/{kind}?after_cursor=…`, so nothing is lost
//! or shown twice whatever the stream missed. An event is sent at once on
//! connecting, then whenever a ring moves (checked every 200 ms); a comment
//! keeps idle connections open. The stream ends when the server shuts down.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::Viewer;
use crate::kind::KINDS;
use crate::store::{Store, sql};

/// How often the rings are looked at.
const POLL: Duration = Duration::from_millis(200);
/// How soon a browser reconnects after the stream breaks.
const RETRY: Duration = Duration::from_millis(500);

/// Per kind: (highest id issued, rows kept).
type Cursors = Vec<(&'static str, i64, i64)>;

async fn cursors(store: &Store) -> Option<Cursors> {
    store
        .read(|conn| {
            KINDS
                .iter()
                .map(|k| sql::kind_stats(conn, k).map(|s| (s.kind, s.last_issued_id, s.count)))
                .collect::<Result<Vec<_>, _>>()
        })
        .await
        .ok()
}

/// The `id:` of an event: `kind=last_issued` for every kind, comma-separated.
pub fn event_id(c: &Cursors) -> String {
    c.iter().map(|(k, id, _)| format!("{k}={id}")).collect::<Vec<_>>().join(",")
}

/// A `Last-Event-ID` back into cursors per kind (unknown kinds and junk ignored).
pub fn parse_event_id(text: &str) -> Map<String, Value> {
    let mut out = Map::new();
    for part in text.split(',') {
        if let Some((k, v)) = part.split_once('=')
            && KINDS.iter().any(|kind| kind.name == k)
            && let Ok(id) = v.trim().parse::<i64>()
        {
            out.insert(k.to_owned(), json!(id));
        }
    }
    out
}

/// An event of the cursors `c`; the first of a stream says first (`retry:`) how soon to reconnect.
fn event(c: &Cursors, resumed_from: Option<&Map<String, Value>>, first: bool) -> Event {
    let cursors: Map<String, Value> = c.iter().map(|(k, id, _)| ((*k).to_owned(), json!(id))).collect();
    let counts: Map<String, Value> = c.iter().map(|(k, _, n)| ((*k).to_owned(), json!(n))).collect();
    let data = json!({ "cursors": cursors, "counts": counts, "resumed_from": resumed_from });
    // axum writes the fields in the order they are set.
    let event = if first { Event::default().retry(RETRY) } else { Event::default() };
    event.event("cursors").id(event_id(c)).data(data.to_string())
}

struct Follow {
    viewer: Viewer,
    last: Option<Cursors>,
    resumed_from: Option<Map<String, Value>>,
}

pub(super) async fn stream(State(viewer): State<Viewer>, headers: HeaderMap) -> Response {
    // A header without one cursor in it resumes from nothing (null), as no header does.
    let resumed_from = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(parse_event_id)
        .filter(|cursors| !cursors.is_empty());
    let start = Follow { viewer, last: None, resumed_from };
    let events = futures_util::stream::unfold(start, |mut f| async move {
        loop {
            if f.last.is_some() {
                tokio::select! {
                    () = tokio::time::sleep(POLL) => {}
                    () = f.viewer.shutdown.cancelled() => return None,
                }
            }
            if f.viewer.shutdown.is_cancelled() {
                return None;
            }
            let Some(now) = cursors(&f.viewer.store).await else { continue };
            if f.last.as_ref() != Some(&now) {
                let e = event(&now, f.resumed_from.take().as_ref(), f.last.is_none());
                f.last = Some(now);
                return Some((Ok::<_, Infallible>(e), f));
            }
        }
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_id_reads_back_as_the_cursors_it_names() {
        let c: Cursors = vec![("logs", 12, 10), ("network_waterfall", 40, 40)];
        let id = event_id(&c);
        assert_eq!(id, "logs=12,network_waterfall=40");
        let back = parse_event_id(&id);
        assert_eq!(back["logs"], json!(12));
        assert_eq!(back["network_waterfall"], json!(40));
        assert!(parse_event_id("nope=1,logs=x").is_empty());
    }
}
