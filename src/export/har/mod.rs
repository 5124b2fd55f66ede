//! The network capture as HAR 1.2, in the shape Chrome DevTools exports and
//! imports: pages per navigation, one entry per request (a fetch/XHR from
//! `network_bodies` joined with its resource-timing row from
//! `network_waterfall`, or a resource-timing row alone), one entry per
//! WebSocket connection with its messages in `_webSocketMessages`.
//!
//! Times: the extension stamps a request's entries (its row and its body) with
//! when it started, so an entry starts at its `ts`. Sizes the browser did not expose are
//! -1, as HAR asks. Headers and bodies are written as stored, so whatever the
//! extension redacted stays redacted.

mod entries;
mod pages;
mod socket;

use std::collections::HashMap;
use std::io::Write;

use rusqlite::Connection;
use serde_json::{Value, json};

use super::{Failure, Progress, Selection};
use crate::kind::{NETWORK_BODIES, NETWORK_WATERFALL};
use crate::query::rows::{self, Filter, Socket};
use entries::{request_entry, resource_entries};
use pages::{Page, Pages, page_json};
use socket::write_socket;

/// A fetch/XHR and its resource-timing row are the same request when their
/// starts are at most this far apart (ms).
const SAME_REQUEST_MS: f64 = 3_000.0;

/// One HAR entry to write, in start order.
pub(super) struct Item {
    pub(super) start: f64,
    pub(super) page: Option<usize>,
    pub(super) url: String,
    what: What,
}

enum What {
    /// A `network_bodies` row, with the `network_waterfall` row of the same request.
    Request { id: i64, timing: Option<i64> },
    /// A `network_waterfall` row alone.
    Resource { id: i64 },
    /// A WebSocket connection, with the `network_waterfall` row of its handshake when there is one.
    Socket { socket: Socket, row: Option<i64> },
}

/// A resource-timing row, kept small until it is written.
struct Timing {
    id: i64,
    tab: Option<i64>,
    start: f64,
    url: String,
    fetch_like: bool,
    /// A WebSocket handshake's row.
    handshake: bool,
    /// The connection a handshake's row opened, when it names it.
    connection_id: Option<String>,
    joined: bool,
}

pub(crate) fn write(
    conn: &Connection,
    selection: &Selection,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<u64, Failure> {
    let filter = &selection.filter;
    let (pages, items) = plan(conn, filter)?;
    progress.total(items.len() as u64);

    let used: std::collections::HashSet<usize> = items.iter().filter_map(|i| i.page).collect();
    let mut ordered: Vec<&Page> = used.iter().map(|p| &pages.list[*p]).collect();
    ordered.sort_by_key(|p| p.ts);
    let pages_json: Vec<Value> = ordered.into_iter().map(page_json).collect();
    let creator = json!({ "name": "gasoline", "version": env!("CARGO_PKG_VERSION") });
    write!(out, "{{\"log\":{{\"version\":\"1.2\",\"creator\":{creator},\"pages\":{},\"entries\":[", json!(pages_json))?;
    let mut written = 0u64;
    for item in &items {
        let pageref = item.page.map(|p| pages.list[p].id.as_str());
        // Sockets are streamed; the others are built whole (and skipped if their row is gone).
        let entries: Vec<Value> = match &item.what {
            What::Request { id, timing } => request(conn, *id, *timing, item, pageref)?.into_iter().collect(),
            What::Resource { id } => resource(conn, *id, item, pageref)?,
            What::Socket { socket, row } => {
                if written > 0 {
                    out.write_all(b",\n")?;
                }
                write_socket(conn, filter, socket, *row, item, pageref, out)?;
                written += 1;
                Vec::new()
            }
        };
        // A row with redirects is an entry per hop, as DevTools exports them.
        for entry in entries {
            if written > 0 {
                out.write_all(b",\n")?;
            }
            serde_json::to_writer(&mut *out, &entry).map_err(std::io::Error::from)?;
            written += 1;
        }
        progress.advance(1);
    }
    out.write_all(b"]}}\n")?;
    Ok(written)
}

/// A fetch/XHR entry, joined with its resource timing when there is one.
fn request(
    conn: &Connection,
    id: i64,
    timing: Option<i64>,
    item: &Item,
    pageref: Option<&str>,
) -> Result<Option<Value>, Failure> {
    let Some(body) = rows::by_id(conn, &NETWORK_BODIES, id)? else { return Ok(None) };
    let timing = match timing {
        Some(t) => rows::by_id(conn, &NETWORK_WATERFALL, t)?,
        None => None,
    };
    let v: Value = serde_json::from_str(&body.json).unwrap_or(Value::Null);
    let w = timing.and_then(|t| serde_json::from_str::<Value>(&t.json).ok());
    Ok(Some(request_entry(&v, w.as_ref(), item, pageref)))
}

fn resource(conn: &Connection, id: i64, item: &Item, pageref: Option<&str>) -> Result<Vec<Value>, Failure> {
    let Some(row) = rows::by_id(conn, &NETWORK_WATERFALL, id)? else { return Ok(Vec::new()) };
    let w: Value = serde_json::from_str(&row.json).unwrap_or(Value::Null);
    Ok(resource_entries(&w, item, pageref))
}

/// Pages, and every entry to write in start order, from the rows' small fields
/// (bodies are read again one at a time when written).
fn plan(conn: &Connection, filter: &Filter) -> Result<(Pages, Vec<Item>), Failure> {
    let mut pages = Pages::read(conn, filter)?;
    let mut timings = read_timings(conn, filter, &mut pages)?;
    let mut items = Vec::new();
    let mut requests = Vec::new();
    rows::each(conn, &NETWORK_BODIES, filter, |e| -> Result<(), Failure> {
        let v: Value = serde_json::from_str(&e.json).unwrap_or(Value::Null);
        let tab = v["tabId"].as_i64();
        let start = e.ts as f64;
        requests.push((e.id, tab, start, v["url"].as_str().unwrap_or_default().to_owned()));
        Ok(())
    })?;
    let mut by_url: HashMap<(Option<i64>, String), Vec<usize>> = HashMap::new();
    for (i, t) in timings.iter().enumerate().filter(|(_, t)| t.fetch_like) {
        by_url.entry((t.tab, t.url.clone())).or_default().push(i);
    }
    for (id, tab, start, raw_url) in requests {
        let page = pages.of(tab, start);
        let url = pages.absolute(&raw_url, tab, page);
        let timing = by_url.get(&(tab, url.clone())).and_then(|candidates| {
            let best = candidates
                .iter()
                .copied()
                .filter(|i| !timings[*i].joined && (timings[*i].start - start).abs() <= SAME_REQUEST_MS)
                .min_by(|a, b| (timings[*a].start - start).abs().total_cmp(&(timings[*b].start - start).abs()))?;
            timings[best].joined = true;
            Some(timings[best].id)
        });
        items.push(Item { start, page, url, what: What::Request { id, timing } });
    }
    // A connection is one entry with its messages: the waterfall row of its handshake joins it
    // (by the connection it names, else the same URL within SAME_REQUEST_MS) rather than being
    // a second entry for the same socket.
    for socket in rows::websocket_connections(conn, filter)? {
        let start = socket.first_ts as f64;
        let page = pages.of(socket.tab, start);
        let url = pages.absolute(socket.url.as_deref().unwrap_or_default(), socket.tab, page);
        let named = timings.iter().position(|t| {
            !t.joined && t.handshake && t.tab == socket.tab && t.connection_id.as_ref() == Some(&socket.connection_id)
        });
        let row = named
            .or_else(|| {
                timings
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| {
                        !t.joined
                            && t.tab == socket.tab
                            && t.handshake
                            && t.connection_id.is_none()
                            && (t.start - start).abs() <= SAME_REQUEST_MS
                            && pages.absolute(&t.url, t.tab, page) == url
                    })
                    .min_by(|a, b| (a.1.start - start).abs().total_cmp(&(b.1.start - start).abs()))
                    .map(|(i, _)| i)
            })
            .map(|i| {
                timings[i].joined = true;
                timings[i].id
            });
        items.push(Item { start, page, url, what: What::Socket { socket, row } });
    }
    for t in timings.drain(..).filter(|t| !t.joined) {
        let page = pages.of(t.tab, t.start);
        let url = pages.absolute(&t.url, t.tab, page);
        items.push(Item { start: t.start, page, url, what: What::Resource { id: t.id } });
    }
    items.sort_by(|a, b| a.start.total_cmp(&b.start));
    Ok((pages, items))
}

fn read_timings(conn: &Connection, filter: &Filter, pages: &mut Pages) -> Result<Vec<Timing>, Failure> {
    let mut timings = Vec::new();
    let mut navigations = Vec::new();
    rows::each(conn, &NETWORK_WATERFALL, filter, |e| -> Result<(), Failure> {
        let v: Value = serde_json::from_str(&e.json).unwrap_or(Value::Null);
        let duration = entries::duration(&v);
        let initiator = crate::kind::request_type(&v).unwrap_or_default();
        let t = Timing {
            id: e.id,
            tab: v["tabId"].as_i64(),
            start: e.ts as f64,
            url: v["url"].as_str().unwrap_or_default().to_owned(),
            fetch_like: matches!(initiator, "fetch" | "xmlhttprequest"),
            // The request that opened a connection whose events are stored: a WebSocket's handshake,
            // an EventSource's stream.
            handshake: matches!(initiator, "websocket" | "eventsource"),
            connection_id: v["connectionId"].as_str().map(str::to_owned),
            joined: false,
        };
        if initiator == "navigation" && duration > 0.0 {
            navigations.push((t.tab, t.url.clone(), t.start, duration));
        }
        timings.push(t);
        Ok(())
    })?;
    // A navigation's timing (its duration runs to the load event) gives its page's load time.
    for (tab, url, start, duration) in navigations {
        let Some(of_tab) = pages.by_tab.get(&tab) else { continue };
        let nearest = of_tab
            .iter()
            .copied()
            .filter(|p| pages.list[*p].url == url && (pages.list[*p].ts as f64 - start).abs() <= 60_000.0)
            .min_by(|a, b| {
                (pages.list[*a].ts as f64 - start).abs().total_cmp(&(pages.list[*b].ts as f64 - start).abs())
            });
        if let Some(p) = nearest {
            pages.list[p].on_load = Some(duration);
        }
    }
    Ok(timings)
}
