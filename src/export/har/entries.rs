//! One HAR entry from stored rows: a fetch/XHR (with its resource timing when
//! found), or a resource-timing row alone; the small conversions they share.

use chrono::{DateTime, SecondsFormat};
use serde_json::{Map, Value, json};
use url::Url;

use super::Item;
use crate::kind::{Kind, NETWORK_BODIES, NETWORK_WATERFALL};
use crate::query::outcome;

/// Latest time a HAR date may say: the end of year 9999 (ISO 8601 without an expanded year).
const LATEST_MS: f64 = 253_402_300_799_999.0;
/// Longest duration taken as told: a page's row saying longer (or a negative, or no number) is
/// hostile or broken, and counts as unknown (0) rather than moving the entry's start by ages.
const LONGEST_MS: f64 = 86_400_000.0;

/// `ms` since the epoch as a HAR date, within 1970 to 9999 whatever a row said.
pub(super) fn iso(ms: f64) -> String {
    let ms = if ms.is_finite() { ms.clamp(0.0, LATEST_MS) } else { 0.0 };
    DateTime::from_timestamp_millis(ms.round() as i64).unwrap_or_default().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A row's `duration` in ms: 0 when missing, negative, or longer than a day.
pub(super) fn duration(v: &Value) -> f64 {
    v["duration"].as_f64().filter(|d| (0.0..=LONGEST_MS).contains(d)).unwrap_or(0.0)
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

pub(super) fn query_string(url: &str) -> Vec<Value> {
    Url::parse(url)
        .map(|u| u.query_pairs().map(|(name, value)| json!({ "name": name, "value": value })).collect())
        .unwrap_or_default()
}

pub(super) fn http_version(protocol: Option<&str>) -> String {
    match protocol.unwrap_or_default() {
        "http/1.1" => "HTTP/1.1".into(),
        "http/1.0" => "HTTP/1.0".into(),
        // DevTools reads "http/2.0" back as h2; h3 it shows as given.
        "h2" | "h2c" => "HTTP/2.0".into(),
        other => other.to_owned(),
    }
}

/// A row's HTTP status, from the field its kind's status column is filled from (`responseStatus`
/// of network_waterfall, `status` of network_bodies: what observe and `tail --failed` read), when
/// it is one HAR can hold.
fn status(row: &Value, kind: &Kind) -> Option<i64> {
    outcome::status_field(kind).and_then(|field| int(&row[field])).filter(|s| (0..1000).contains(s))
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_f64().map(|f| f.round() as i64))
}

/// A size in bytes as HAR takes it: a whole number from 0 (a stored value that is none, such as
/// a negative, a huge or a text one a client sent, is unknown: None).
fn size(v: &Value) -> Option<i64> {
    int(v).filter(|n| (0..=(1_i64 << 53) - 1).contains(n))
}

/// Says how much of a body was kept: cut by the extension (`<prefix>BodyTruncated`,
/// `<prefix>BodySize`) and/or by the server's field cap (`_truncated`).
fn truncation(v: &Value, prefix: &str, kept: usize) -> Option<String> {
    let field = format!("{prefix}Body");
    let mut notes = Vec::new();
    if v[format!("{prefix}BodyTruncated")].as_bool() == Some(true) {
        match size(&v[format!("{prefix}BodySize")]) {
            Some(size) => notes.push(format!("the extension captured the first {kept} of {size} bytes")),
            None => notes.push(format!("the extension captured only the first {kept} bytes")),
        }
    }
    if let Some(original) = size(&v["_truncated"][&field]) {
        notes.push(format!("the server kept {kept} of the {original} bytes it received"));
    }
    (!notes.is_empty()).then(|| format!("truncated: {}", notes.join("; ")))
}

/// "[image/png 1234 bytes not captured]": the extension's note in place of a body it did not read.
fn is_not_captured_note(text: &str) -> bool {
    text.starts_with('[') && text.ends_with("not captured]")
}

pub(super) fn timings(duration: f64) -> Value {
    json!({ "blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": duration, "receive": 0, "ssl": -1 })
}

/// HAR timings from a row's `phases` (Resource Timing's, in ms, where the page may see them):
/// `dns`, `connect` (its `tls` as `ssl`, which HAR counts inside `connect`), `wait` (request sent
/// to first byte), `receive` (the download), and the rest of the duration before them (queueing,
/// a redirect, a service worker) as `blocked`, so that they add up to `time` as HAR requires.
/// Without phases, or with phases a hostile row made absurd, the whole duration is `wait`.
pub(super) fn timings_of(duration: f64, phases: Option<&Value>) -> Value {
    let Some(phases) = phases.filter(|p| p.is_object()) else { return timings(duration) };
    let phase = |name: &str| phases[name].as_f64().filter(|d| (0.0..=LONGEST_MS).contains(d));
    let [dns, connect, wait, receive] = ["dns", "connect", "waiting", "download"].map(|n| phase(n).unwrap_or(0.0));
    let known = dns + connect + wait + receive;
    let ssl = phase("tls").filter(|tls| *tls <= connect);
    // Phases rounded to tenths (each by up to 0.05 ms) can add up to a little more than the
    // duration: that is taken off the wait.
    let over = (known - duration).max(0.0);
    if known == 0.0 || over > 0.25 || wait < over {
        return timings(duration);
    }
    let blocked = (duration - known).max(0.0);
    let wait = wait - over;
    json!({ "blocked": blocked, "dns": dns, "connect": connect, "send": 0, "wait": wait, "receive": receive, "ssl": ssl.unwrap_or(-1.0) })
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
pub(super) fn request_entry(v: &Value, w: Option<&Value>, item: &Item, pageref: Option<&str>) -> Value {
    let duration = duration(v);
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
        request["bodySize"] = json!(size(&v["requestBodySize"]).unwrap_or(text.len() as i64));
    }

    let mime = v["contentType"]
        .as_str()
        .or_else(|| header(&v["responseHeaders"], "content-type"))
        .filter(|m| !m.is_empty())
        .unwrap_or("x-unknown");
    let mut content = json!({ "size": 0, "mimeType": mime });
    match v["responseBody"].as_str() {
        // An HTML error page was kept as its text (`pageText`: the traceback, not the styles):
        // that text, as plain text, so that no HAR viewer renders what a page sent as markup.
        _ if v["pageText"].is_string() => {
            content["text"] = v["pageText"].clone();
            content["mimeType"] = json!("text/plain; charset=utf-8");
            content["comment"] = json!(format!("the text of an HTML error page ({mime}); its HTML was not kept"));
        }
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
    let decoded = w.and_then(|w| size(&w["decodedBodySize"])).filter(|n| *n > 0);
    content["size"] = json!(size(&v["responseBodySize"]).or(decoded).unwrap_or(text_len));
    let mut response = json!({
        "status": status(v, &NETWORK_BODIES).unwrap_or(0),
        "statusText": v["statusText"].as_str().unwrap_or_default(),
        "httpVersion": protocol,
        "cookies": [],
        "headers": headers(&v["responseHeaders"]),
        "content": content,
        "redirectURL": header(&v["responseHeaders"], "location").unwrap_or_default(),
        "headersSize": -1,
        "bodySize": w.and_then(|w| size(&w["encodedBodySize"])).unwrap_or(-1),
    });
    if let Some(transfer) = w.and_then(|w| size(&w["transferSize"])) {
        response["_transferSize"] = json!(transfer);
    }
    // Why it failed: the browser's reason where its row is joined (deep mode: `net::ERR_…`, a CORS
    // refusal explained), else the page's (`TypeError: Failed to fetch` for all of them).
    let browser_error = w.filter(|w| w["source"] == "browser").and_then(|w| w["error"].as_str());
    if let Some(error) = browser_error.or_else(|| v["error"].as_str()) {
        response["_error"] = json!(error);
    }
    let resource_type = if v["initiator"].as_str() == Some("xhr") { "xhr" } else { "fetch" };
    let mut entry = json!({
        "startedDateTime": iso(item.start),
        "time": duration,
        "request": request,
        "response": response,
        "cache": {},
        "timings": timings_of(duration, w.and_then(|w| w.get("phases"))),
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
        // The page's initiator types, and the browser's resource types (deep mode's `type`).
        t if crate::kind::DOCUMENT_TYPES.contains(&t) => return "document",
        "stylesheet" => return "stylesheet",
        "font" => return "font",
        "ping" => return "ping",
        "media" => return "media",
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
/// The entries of a `network_waterfall` row without a body: one, or, for the browser's row of a
/// request that was redirected (deep mode's `redirects`: `{url, status, location}` per hop), one
/// per hop and one for where it ended, as DevTools exports a redirect chain.
pub(super) fn resource_entries(w: &Value, item: &Item, pageref: Option<&str>) -> Vec<Value> {
    let method = w["method"].as_str().filter(|m| !m.is_empty());
    let hops = w["redirects"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut entries = Vec::with_capacity(hops.len() + 1);
    let mut current = method.unwrap_or("GET").to_owned();
    for hop in hops {
        let status = int(&hop["status"]).filter(|s| (0..1000).contains(s));
        let url = hop["url"].as_str().unwrap_or(&item.url);
        let mut entry = resource_entry(w, item, pageref, url, method.map(|_| current.as_str()), status, 0.0);
        entry["response"]["redirectURL"] = json!(hop["location"].as_str().unwrap_or_default());
        entries.push(entry);
        // 307 and 308 keep the method; the other redirects follow with GET.
        if !matches!(status, Some(307 | 308)) {
            current = "GET".to_owned();
        }
    }
    let url = if hops.is_empty() { item.url.as_str() } else { w["finalUrl"].as_str().unwrap_or(&item.url) };
    let status = status(w, &NETWORK_WATERFALL);
    entries.push(resource_entry(w, item, pageref, url, method.map(|_| current.as_str()), status, duration(w)));
    entries
}

/// One entry of a row without a body: `method` None when the row does not know it (the page's
/// Resource Timing alone: written GET, and the comment says it is not known).
fn resource_entry(
    w: &Value,
    item: &Item,
    pageref: Option<&str>,
    url: &str,
    method: Option<&str>,
    status: Option<i64>,
    duration: f64,
) -> Value {
    let protocol = http_version(w["nextHopProtocol"].as_str());
    let initiator = crate::kind::request_type(w).unwrap_or_default();
    let mut comment = if w["source"] == "browser" {
        format!("from the browser's view ({initiator}): headers and body were not captured")
    } else if method.is_some() {
        format!("from the page ({initiator}): headers and body were not captured")
    } else {
        format!("from resource timing ({initiator}): method, headers and body were not captured")
    };
    let error = w["error"].as_str();
    match (status, error) {
        (None, Some(error)) => comment.push_str(&format!("; it failed: {error}")),
        (None, None) => comment.push_str("; the browser did not expose the status"),
        _ => {}
    }
    let mut entry = json!({
        "startedDateTime": iso(item.start),
        "time": duration,
        "request": {
            "method": method.unwrap_or("GET"),
            "url": url,
            "httpVersion": protocol,
            "cookies": [],
            "headers": [],
            "queryString": query_string(url),
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": status.unwrap_or(0),
            "statusText": "",
            "httpVersion": protocol,
            "cookies": [],
            "headers": [],
            "content": { "size": size(&w["decodedBodySize"]).unwrap_or(0), "mimeType": "x-unknown" },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": size(&w["encodedBodySize"]).unwrap_or(-1),
            "_transferSize": size(&w["transferSize"]).unwrap_or(0),
        },
        "cache": {},
        "timings": timings_of(duration, w.get("phases")),
        "comment": comment,
        "_resourceType": resource_type(initiator, url),
        "_gasoline": gasoline_ids(&w["tabId"], &[("network_waterfall", int(&w["id"]))]),
    });
    if let Some(error) = error {
        entry["response"]["_error"] = json!(error);
    }
    if let Some(p) = pageref {
        entry["pageref"] = json!(p);
    }
    entry
}
