//! The network capture as HAR 1.2, in the shape Chrome DevTools exports and
//! imports: pages per navigation, one entry per request (a fetch/XHR from
//! `network_bodies` joined with its resource-timing row from
//! `network_waterfall`, or a resource-timing row alone), one entry per
//! WebSocket connection with its messages in `_webSocketMessages`.
//!
//! Times: the extension stamps an entry when it has finished, so a request's
//! start is its `ts` minus its `duration`. Sizes the browser did not expose are
//! -1, as HAR asks. Headers and bodies are written as stored, so whatever the
//! extension redacted stays redacted.

use std::collections::HashMap;
use std::io::Write;

use chrono::{DateTime, SecondsFormat};
use rusqlite::Connection;
use serde_json::{Map, Value, json};
use url::Url;

use super::{Failure, Progress, Selection};
use crate::kind::{ACTIONS, NETWORK_BODIES, NETWORK_WATERFALL, WEBSOCKET_EVENTS};
use crate::rows::{self, Filter, Socket};

/// A fetch/XHR and its resource-timing row are the same request when their
/// starts are at most this far apart (ms).
const SAME_REQUEST_MS: f64 = 3_000.0;

/// A page: a navigation of a tab (an `actions` entry of type `navigate`).
struct Page {
    id: String,
    tab: Option<i64>,
    ts: i64,
    url: String,
    title: String,
    on_load: Option<f64>,
    /// Made up for entries of a tab before any navigation seen.
    fallback: bool,
}

/// One HAR entry to write, in start order.
struct Item {
    start: f64,
    page: Option<usize>,
    url: String,
    what: What,
}

enum What {
    /// A `network_bodies` row, with the `network_waterfall` row of the same request.
    Request {
        id: i64,
        timing: Option<i64>,
    },
    /// A `network_waterfall` row alone.
    Resource {
        id: i64,
    },
    Socket(Socket),
}

/// A resource-timing row, kept small until it is written.
struct Timing {
    id: i64,
    tab: Option<i64>,
    start: f64,
    url: String,
    fetch_like: bool,
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
        let entry = match &item.what {
            What::Request { id, timing } => request(conn, *id, *timing, item, pageref)?,
            What::Resource { id } => resource(conn, *id, item, pageref)?,
            What::Socket(_) => None,
        };
        let is_socket = matches!(item.what, What::Socket(_));
        if entry.is_none() && !is_socket {
            continue;
        }
        if written > 0 {
            out.write_all(b",\n")?;
        }
        match (&item.what, entry) {
            (What::Socket(socket), _) => write_socket(conn, filter, socket, item, pageref, out)?,
            (_, entry) => serde_json::to_writer(&mut *out, &entry).map_err(std::io::Error::from)?,
        }
        written += 1;
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

fn resource(conn: &Connection, id: i64, item: &Item, pageref: Option<&str>) -> Result<Option<Value>, Failure> {
    let Some(row) = rows::by_id(conn, &NETWORK_WATERFALL, id)? else { return Ok(None) };
    let w: Value = serde_json::from_str(&row.json).unwrap_or(Value::Null);
    Ok(Some(resource_entry(&w, item, pageref)))
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
        let start = e.ts as f64 - v["duration"].as_f64().unwrap_or(0.0).max(0.0);
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
    for t in timings.drain(..).filter(|t| !t.joined) {
        let page = pages.of(t.tab, t.start);
        let url = pages.absolute(&t.url, t.tab, page);
        items.push(Item { start: t.start, page, url, what: What::Resource { id: t.id } });
    }
    for socket in rows::websocket_connections(conn, filter)? {
        let start = socket.first_ts as f64;
        let page = pages.of(socket.tab, start);
        let url = pages.absolute(socket.url.as_deref().unwrap_or_default(), socket.tab, page);
        items.push(Item { start, page, url, what: What::Socket(socket) });
    }
    items.sort_by(|a, b| a.start.total_cmp(&b.start));
    Ok((pages, items))
}

/// The pages of the export, per tab in time order, and each tab's last known URL.
struct Pages {
    list: Vec<Page>,
    by_tab: HashMap<Option<i64>, Vec<usize>>,
    tab_urls: HashMap<i64, String>,
}

impl Pages {
    fn read(conn: &Connection, filter: &Filter) -> Result<Self, Failure> {
        let navigations = Filter {
            // Every navigation, also before --since: the page an entry in range belongs to
            // may have started earlier. Pages without entries are left out when written.
            tab: filter.tab,
            equals: Some(("type", "navigate".into())),
            ..Filter::default()
        };
        let mut list = Vec::new();
        rows::each(conn, &ACTIONS, &navigations, |e| -> Result<(), Failure> {
            let v: Value = serde_json::from_str(&e.json).unwrap_or(Value::Null);
            let url = v["url"].as_str().unwrap_or_default().to_owned();
            list.push(Page {
                id: format!("page_{}", list.len() + 1),
                tab: v["tabId"].as_i64(),
                ts: e.ts,
                title: url.clone(),
                url,
                on_load: None,
                fallback: false,
            });
            Ok(())
        })?;
        let mut tab_urls = HashMap::new();
        let mut stmt = conn.prepare_cached("SELECT tab_id, url FROM tabs WHERE url IS NOT NULL")?;
        for row in stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
            let (tab, url) = row?;
            tab_urls.insert(tab, url);
        }
        let mut pages = Pages { list: Vec::new(), by_tab: HashMap::new(), tab_urls };
        for page in list {
            pages.push(page);
        }
        Ok(pages)
    }

    fn push(&mut self, page: Page) {
        self.by_tab.entry(page.tab).or_default().push(self.list.len());
        self.list.push(page);
    }

    /// The page of `tab` that was showing at `time`: its latest navigation before
    /// then, or, for what came before any navigation seen, one page of its own for the tab.
    fn of(&mut self, tab: Option<i64>, time: f64) -> Option<usize> {
        if let Some(pages) = self.by_tab.get(&tab) {
            // A page's own document request starts a moment before its navigate action is stamped.
            let navigated =
                pages.iter().rev().find(|p| !self.list[**p].fallback && self.list[**p].ts as f64 <= time + 1_000.0);
            if let Some(p) = navigated {
                return Some(*p);
            }
            if let Some(p) = pages.iter().copied().find(|p| self.list[*p].fallback) {
                self.list[p].ts = self.list[p].ts.min(time as i64);
                return Some(p);
            }
        }
        let url = tab.and_then(|t| self.tab_urls.get(&t).cloned()).unwrap_or_default();
        let title = match tab {
            Some(t) if url.is_empty() => format!("tab {t}"),
            Some(_) => url.clone(),
            None => "unknown tab".into(),
        };
        let id = format!("page_{}", self.list.len() + 1);
        self.push(Page { id, tab, ts: time as i64, url, title, on_load: None, fallback: true });
        Some(self.list.len() - 1)
    }

    /// `raw` made absolute against the page's URL (the extension keeps fetch URLs as the page wrote them).
    fn absolute(&self, raw: &str, tab: Option<i64>, page: Option<usize>) -> String {
        if Url::parse(raw).is_ok() {
            return raw.to_owned();
        }
        let base = page
            .map(|p| self.list[p].url.as_str())
            .filter(|u| !u.is_empty())
            .or_else(|| tab.and_then(|t| self.tab_urls.get(&t)).map(String::as_str));
        base.and_then(|b| Url::parse(b).ok())
            .and_then(|b| b.join(raw).ok())
            .map_or_else(|| raw.to_owned(), String::from)
    }
}

fn read_timings(conn: &Connection, filter: &Filter, pages: &mut Pages) -> Result<Vec<Timing>, Failure> {
    let mut timings = Vec::new();
    let mut navigations = Vec::new();
    rows::each(conn, &NETWORK_WATERFALL, filter, |e| -> Result<(), Failure> {
        let v: Value = serde_json::from_str(&e.json).unwrap_or(Value::Null);
        let duration = v["duration"].as_f64().unwrap_or(0.0).max(0.0);
        let initiator = v["initiatorType"].as_str().unwrap_or_default();
        let t = Timing {
            id: e.id,
            tab: v["tabId"].as_i64(),
            start: e.ts as f64 - duration,
            url: v["url"].as_str().unwrap_or_default().to_owned(),
            fetch_like: matches!(initiator, "fetch" | "xmlhttprequest"),
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

fn iso(ms: f64) -> String {
    DateTime::from_timestamp_millis(ms.round() as i64).unwrap_or_default().to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn page_json(p: &Page) -> Value {
    json!({
        "startedDateTime": iso(p.ts as f64),
        "id": p.id,
        "title": p.title,
        "pageTimings": { "onContentLoad": -1, "onLoad": p.on_load.unwrap_or(-1.0) },
    })
}

/// `{name: value}` as HAR's `[{name, value}]`.
fn headers(v: &Value) -> Vec<Value> {
    v.as_object()
        .map(|o| {
            o.iter()
                .map(|(name, value)| {
                    let value = value.as_str().map_or_else(|| value.to_string(), str::to_owned);
                    json!({ "name": name, "value": value })
                })
                .collect()
        })
        .unwrap_or_default()
}

fn header<'v>(v: &'v Value, name: &str) -> Option<&'v str> {
    v.as_object()?.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).and_then(|(_, v)| v.as_str())
}

fn query_string(url: &str) -> Vec<Value> {
    Url::parse(url)
        .map(|u| u.query_pairs().map(|(name, value)| json!({ "name": name, "value": value })).collect())
        .unwrap_or_default()
}

fn http_version(protocol: Option<&str>) -> String {
    match protocol.unwrap_or_default() {
        "http/1.1" => "HTTP/1.1".into(),
        "http/1.0" => "HTTP/1.0".into(),
        // DevTools reads "http/2.0" back as h2; h3 it shows as given.
        "h2" | "h2c" => "HTTP/2.0".into(),
        other => other.to_owned(),
    }
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_f64().map(|f| f.round() as i64))
}

/// Says how much of a body was kept: cut by the extension (`<prefix>BodyTruncated`,
/// `<prefix>BodySize`) and/or by the server's field cap (`_truncated`).
fn truncation(v: &Value, prefix: &str, kept: usize) -> Option<String> {
    let field = format!("{prefix}Body");
    let mut notes = Vec::new();
    if v[format!("{prefix}BodyTruncated")].as_bool() == Some(true) {
        match int(&v[format!("{prefix}BodySize")]) {
            Some(size) => notes.push(format!("the extension captured the first {kept} of {size} bytes")),
            None => notes.push(format!("the extension captured only the first {kept} bytes")),
        }
    }
    if let Some(original) = int(&v["_truncated"][&field]) {
        notes.push(format!("the server kept {kept} of the {original} bytes it received"));
    }
    (!notes.is_empty()).then(|| format!("truncated: {}", notes.join("; ")))
}

/// "[image/png 1234 bytes not captured]": the extension's note in place of a body it did not read.
fn is_not_captured_note(text: &str) -> bool {
    text.starts_with('[') && text.ends_with("not captured]")
}

fn timings(duration: f64) -> Value {
    json!({ "blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": duration, "receive": 0, "ssl": -1 })
}

fn gasoline_ids(tab: &Value, ids: &[(&str, Option<i64>)]) -> Value {
    let mut m = Map::new();
    m.insert("tabId".into(), tab.clone());
    for (kind, id) in ids {
        if let Some(id) = id {
            m.insert((*kind).into(), json!(id));
        }
    }
    Value::Object(m)
}

/// A fetch/XHR (`v`, from network_bodies) with its resource timing (`w`) when found.
fn request_entry(v: &Value, w: Option<&Value>, item: &Item, pageref: Option<&str>) -> Value {
    let duration = v["duration"].as_f64().unwrap_or(0.0).max(0.0);
    let protocol = http_version(w.and_then(|w| w["nextHopProtocol"].as_str()));
    let mut request = json!({
        "method": v["method"].as_str().unwrap_or("GET"),
        "url": item.url,
        "httpVersion": protocol,
        "cookies": [],
        "headers": headers(&v["requestHeaders"]),
        "queryString": query_string(&item.url),
        "headersSize": -1,
        "bodySize": 0,
    });
    if let Some(text) = v["requestBody"].as_str() {
        let mime = header(&v["requestHeaders"], "content-type").unwrap_or_default();
        let mut post = json!({ "mimeType": mime, "text": text });
        if mime.contains("x-www-form-urlencoded") {
            let params: Vec<Value> = url::form_urlencoded::parse(text.as_bytes())
                .map(|(name, value)| json!({ "name": name, "value": value }))
                .collect();
            post["params"] = json!(params);
        }
        if let Some(note) = truncation(v, "request", text.len()) {
            post["comment"] = json!(note);
        }
        request["postData"] = post;
        request["bodySize"] = json!(int(&v["requestBodySize"]).unwrap_or(text.len() as i64));
    }

    let mime = v["contentType"]
        .as_str()
        .or_else(|| header(&v["responseHeaders"], "content-type"))
        .filter(|m| !m.is_empty())
        .unwrap_or("x-unknown");
    let mut content = json!({ "size": 0, "mimeType": mime });
    match v["responseBody"].as_str() {
        Some(note) if is_not_captured_note(note) => {
            content["comment"] = json!(format!("body not captured: {note}"));
        }
        Some(text) => {
            content["text"] = json!(text);
            if let Some(note) = truncation(v, "response", text.len()) {
                content["comment"] = json!(note);
            }
        }
        None => {}
    }
    let text_len = v["responseBody"].as_str().filter(|t| !is_not_captured_note(t)).map_or(0, str::len) as i64;
    let decoded = w.and_then(|w| int(&w["decodedBodySize"])).filter(|n| *n > 0);
    content["size"] = json!(int(&v["responseBodySize"]).or(decoded).unwrap_or(text_len));
    let mut response = json!({
        "status": int(&v["status"]).unwrap_or(0),
        "statusText": v["statusText"].as_str().unwrap_or_default(),
        "httpVersion": protocol,
        "cookies": [],
        "headers": headers(&v["responseHeaders"]),
        "content": content,
        "redirectURL": header(&v["responseHeaders"], "location").unwrap_or_default(),
        "headersSize": -1,
        "bodySize": w.and_then(|w| int(&w["encodedBodySize"])).unwrap_or(-1),
    });
    if let Some(size) = w.and_then(|w| int(&w["transferSize"])) {
        response["_transferSize"] = json!(size);
    }
    if let Some(error) = v["error"].as_str() {
        response["_error"] = json!(error);
    }
    let resource_type = if v["initiator"].as_str() == Some("xhr") { "xhr" } else { "fetch" };
    let mut entry = json!({
        "startedDateTime": iso(item.start),
        "time": duration,
        "request": request,
        "response": response,
        "cache": {},
        "timings": timings(duration),
        "_resourceType": resource_type,
        "_gasoline": gasoline_ids(&v["tabId"], &[
            ("network_bodies", int(&v["id"])),
            ("network_waterfall", w.and_then(|w| int(&w["id"]))),
        ]),
    });
    if let Some(p) = pageref {
        entry["pageref"] = json!(p);
    }
    if let Some(error) = v["error"].as_str() {
        entry["comment"] = json!(format!("the request failed: {error}"));
    }
    entry
}

/// Chrome's `_resourceType` for a resource-timing row.
fn resource_type(initiator: &str, url: &str) -> &'static str {
    let path = Url::parse(url).map(|u| u.path().to_ascii_lowercase()).unwrap_or_default();
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match initiator {
        "navigation" => return "document",
        "fetch" => return "fetch",
        "xmlhttprequest" => return "xhr",
        "script" => return "script",
        "img" | "image" => return "image",
        "video" | "audio" | "track" => return "media",
        "beacon" => return "ping",
        _ => {}
    }
    match ext {
        "css" => "stylesheet",
        "js" | "mjs" => "script",
        "png" | "jpg" | "jpeg" | "gif" | "webp" | "avif" | "svg" | "ico" | "bmp" => "image",
        "woff" | "woff2" | "ttf" | "otf" | "eot" => "font",
        "mp4" | "webm" | "mp3" | "ogg" | "wav" => "media",
        "json" => "fetch",
        _ if initiator == "link" => "stylesheet",
        _ => "other",
    }
}

/// A resource-timing row alone: what the page loaded, without headers or bodies.
fn resource_entry(w: &Value, item: &Item, pageref: Option<&str>) -> Value {
    let duration = w["duration"].as_f64().unwrap_or(0.0).max(0.0);
    let protocol = http_version(w["nextHopProtocol"].as_str());
    let initiator = w["initiatorType"].as_str().unwrap_or_default();
    let status = int(&w["responseStatus"]);
    let mut comment = format!("from resource timing ({initiator}): method, headers and body were not captured");
    if status.is_none() {
        comment.push_str("; the browser did not expose the status");
    }
    let mut entry = json!({
        "startedDateTime": iso(item.start),
        "time": duration,
        "request": {
            "method": "GET",
            "url": item.url,
            "httpVersion": protocol,
            "cookies": [],
            "headers": [],
            "queryString": query_string(&item.url),
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": status.unwrap_or(0),
            "statusText": "",
            "httpVersion": protocol,
            "cookies": [],
            "headers": [],
            "content": { "size": int(&w["decodedBodySize"]).unwrap_or(0), "mimeType": "x-unknown" },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": int(&w["encodedBodySize"]).unwrap_or(-1),
            "_transferSize": int(&w["transferSize"]).unwrap_or(0),
        },
        "cache": {},
        "timings": timings(duration),
        "comment": comment,
        "_resourceType": resource_type(initiator, &item.url),
        "_gasoline": gasoline_ids(&w["tabId"], &[("network_waterfall", int(&w["id"]))]),
    });
    if let Some(p) = pageref {
        entry["pageref"] = json!(p);
    }
    entry
}

/// One WebSocket connection: the handshake as the request, its messages streamed
/// into `_webSocketMessages` (Chrome's form: type, time in seconds, opcode, data).
fn write_socket(
    conn: &Connection,
    filter: &Filter,
    socket: &Socket,
    item: &Item,
    pageref: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let time = (socket.last_ts - socket.first_ts).max(0) as f64;
    let mut entry = json!({
        "startedDateTime": iso(item.start),
        "time": time,
        "request": {
            "method": "GET",
            "url": item.url,
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": [],
            "queryString": query_string(&item.url),
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": if socket.opened { 101 } else { 0 },
            "statusText": if socket.opened { "Switching Protocols" } else { "" },
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": [],
            "content": { "size": 0, "mimeType": "x-unknown" },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": 0,
        },
        "cache": {},
        "timings": timings(time),
        "_resourceType": "websocket",
        "_gasoline": { "tabId": socket.tab, "connectionId": socket.connection_id },
    });
    if let Some(p) = pageref {
        entry["pageref"] = json!(p);
    }
    let head = entry.to_string();
    out.write_all(head.strip_suffix('}').unwrap_or(&head).as_bytes())?;
    out.write_all(b",\"_webSocketMessages\":[")?;
    let events = Filter { equals: Some(("connection_id", socket.connection_id.clone())), ..filter.clone() };
    let mut first = true;
    let mut notes: Vec<String> = Vec::new();
    rows::each(conn, &WEBSOCKET_EVENTS, &events, |e| -> Result<(), Failure> {
        let v: Value = serde_json::from_str(&e.json).unwrap_or(Value::Null);
        match v["event"].as_str() {
            Some("message") => {
                let data = match &v["data"] {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                let binary = data.starts_with("[binary ") || data.starts_with("[Blob ");
                let message = json!({
                    "type": if v["direction"].as_str() == Some("outgoing") { "send" } else { "receive" },
                    "time": e.ts as f64 / 1000.0,
                    "opcode": if binary { 2 } else { 1 },
                    "data": data,
                });
                let sep: &[u8] = if first { b"" } else { b"," };
                first = false;
                out.write_all(sep)?;
                out.write_all(message.to_string().as_bytes())?;
            }
            Some("close") => notes.push(format!(
                "closed with code {}{}",
                v["code"],
                v["reason"].as_str().filter(|r| !r.is_empty()).map(|r| format!(" ({r})")).unwrap_or_default()
            )),
            Some("error") => notes.push("a WebSocket error event fired".into()),
            _ => {}
        }
        Ok(())
    })?;
    out.write_all(b"]")?;
    if !notes.is_empty() {
        write!(out, ",\"comment\":{}", json!(notes.join("; ")))?;
    }
    out.write_all(b"}")?;
    Ok(())
}
