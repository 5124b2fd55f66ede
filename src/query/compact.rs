//! Compact entries: the fields that answer the usual question, numbers
//! rounded, long text cut, logged objects shown as JavaScript literals (as
//! DevTools shows them) rather than escaped JSON, times relative to `t0`, and
//! the values every entry shares said once in `common`.

use std::borrow::Cow;
use std::collections::HashMap;

use rusqlite::Row;
use rusqlite::types::ValueRef;
use serde_json::Value;
use serde_json::value::RawValue;

use super::args::Fields;
use crate::kind::{self, Kind, Shape, View};

/// Longest text of a compact field; the rest is left for drill-down by id.
pub const TEXT_CAP: usize = 500;

/// One field of a compact entry.
#[derive(Debug, Clone, Copy)]
enum Pick {
    View(&'static View),
    /// A stored field as it is (numbers rounded, text cut).
    Stored(&'static str),
    /// `ts` as stored (ms since the epoch).
    Ts,
    /// `at`: the original location of a logs entry (`crate::sourcemap`), "src/App.jsx:12:9":
    /// its call site's, else its first stack frame's outside library code.
    At,
    /// `frames`: a logs entry's original stack frames, library code left out.
    Frames,
}

/// Original frames an error's compact entry lists.
const COMPACT_FRAMES: usize = 4;

/// The fields compact entries carry, resolved once per call.
#[derive(Debug, Clone)]
pub struct Layout {
    picks: Vec<Pick>,
    /// Entries carry `t`, ms after `common.t0`.
    relative_time: bool,
    /// Stored fields named in `fields` come as stored (a drill-down's), not cut or rewritten.
    as_stored: bool,
    /// An error's raw `location` and `stack` are left out where `at` and `frames` say the same
    /// in the original source: the compact errors view, not fields the agent named.
    originals_lead: bool,
    /// Whether `at` may name library code when no frame of the page's own maps: a log's (a
    /// library's warning, React's hydration error: the only clue there is), not a request's,
    /// which a framework's client makes for every route alike.
    library_at: bool,
}

impl Layout {
    /// None for `fields=["all"]` (entries as stored).
    pub fn new(kind: &'static Kind, errors_only: bool, fields: &Fields) -> Option<Layout> {
        static TAB: View = View { name: "tabId", from: &["tabId"], shape: Shape::Whole };
        let views: &'static [View] = if errors_only { &kind::ERRORS_COMPACT } else { kind.compact };
        match fields {
            Fields::All => None,
            Fields::Compact => {
                // An entry's original location leads (a log line's, a failed request's call
                // site): it is the agent's own file.
                let mapped = kind.frames_page.is_some();
                let at = mapped.then_some(Pick::At);
                let frames = (mapped && errors_only).then_some(Pick::Frames);
                let raw_location = views.iter().any(|v| v.name == "location");
                let picks = std::iter::once(Pick::View(&TAB)).chain(at).chain(views.iter().map(Pick::View));
                Some(Layout {
                    picks: picks.chain(frames).collect(),
                    relative_time: true,
                    as_stored: false,
                    originals_lead: mapped && raw_location,
                    library_at: kind.name == kind::LOGS.name,
                })
            }
            Fields::Only(names) => {
                let mut picks = Vec::new();
                let mut relative_time = false;
                for name in names {
                    match name.as_str() {
                        "id" => {}
                        "t" => relative_time = true,
                        "ts" => picks.push(Pick::Ts),
                        "tabId" => picks.push(Pick::View(&TAB)),
                        other => {
                            let view = views.iter().chain(kind.compact).find(|v| v.name == other);
                            let stored = kind.field_names().into_iter().find(|f| *f == other);
                            match (view, stored) {
                                (Some(v), _) => picks.push(Pick::View(v)),
                                (None, Some(f)) => picks.push(Pick::Stored(f)),
                                (None, None) => {}
                            }
                        }
                    }
                }
                Some(Layout { picks, relative_time, as_stored: false, originals_lead: false, library_at: true })
            }
        }
    }

    /// The same layout with the stored fields it names given as stored: a drill-down's, where
    /// `fields: ["responseBody"]` is how one large field is read whole.
    pub fn giving_stored(self) -> Layout {
        Layout { as_stored: true, ..self }
    }

    /// Reads one row (`select_list` order) into a compact item.
    pub fn item(&self, kind: &Kind, row: &Row<'_>) -> rusqlite::Result<Item> {
        let id: i64 = row.get(0)?;
        let tab: Option<i64> = row.get(1)?;
        let ts: Option<i64> = row.get(2)?;
        let n = kind.columns.len();
        let data_text = match row.get_ref(3 + n)? {
            ValueRef::Text(t) => std::str::from_utf8(t).unwrap_or("{}"),
            _ => "{}",
        };
        let data: HashMap<Cow<'_, str>, &RawValue> = serde_json::from_str(data_text).unwrap_or_default();
        // The lengths ingest cut fields from (most rows have none): a cut says how many characters
        // the page sent past it, not how many the stored copy holds.
        let cuts: HashMap<String, usize> = match row.get_ref(4 + n)? {
            ValueRef::Text(t) => serde_json::from_slice(t).unwrap_or_default(),
            _ => HashMap::new(),
        };
        let sent = |name: &str| cuts.get(name).copied();
        let lookup = |name: &str| -> rusqlite::Result<Option<Found<'_>>> {
            if name == "tabId" {
                return Ok(tab.map(Found::Int));
            }
            if let Some(i) = kind.columns.iter().position(|c| c.field == name) {
                return Ok(match row.get_ref(3 + i)? {
                    ValueRef::Integer(v) => Some(Found::Int(v)),
                    ValueRef::Real(v) => Some(Found::Real(v)),
                    ValueRef::Text(t) => Some(Found::Text(String::from_utf8_lossy(t))),
                    _ => None,
                });
            }
            Ok(data.get(name).map(|raw| Found::Raw(raw)))
        };
        let mut fields = Vec::with_capacity(self.picks.len());
        for pick in &self.picks {
            let (name, value) = match pick {
                Pick::Ts => ("ts", ts.map(|t| t.to_string())),
                Pick::At => (
                    "at",
                    original_at(
                        data.get("original").copied(),
                        data.get("frames").copied(),
                        data.get("sourcemap").copied(),
                        data.get("location").copied(),
                        Placing { library: self.library_at, thrown_first: data.contains_key("stack") },
                    ),
                ),
                Pick::Frames => ("frames", original_frames(data.get("frames").copied())),
                Pick::Stored(name) if self.as_stored => (*name, lookup(name)?.map(|f| f.stored())),
                // A compact view named in a drill-down's fields that is a stored field (`duration`):
                // as stored too, not rounded.
                Pick::View(view) if self.as_stored && lookup(view.name)?.is_some() => {
                    (view.name, lookup(view.name)?.map(|f| f.stored()))
                }
                Pick::Stored(name) => (*name, lookup(name)?.map(|f| f.render(Shape::Whole, sent(name)))),
                Pick::View(view) => {
                    let mut value = None;
                    for from in view.from {
                        if let Some(found) = lookup(from)? {
                            if view.shape == Shape::Bytes && found.is_zero() {
                                continue;
                            }
                            value = Some(found.render(view.shape, sent(from)));
                            break;
                        }
                    }
                    (view.name, value)
                }
            };
            if let Some(value) = value.filter(|v| v != "null") {
                fields.push((name, value));
            }
        }
        if self.originals_lead {
            drop_raw_beside_originals(&mut fields);
        }
        if !self.library_at {
            // A request made by library code alone (a framework's client): its raw call site is
            // the library's too, and no lead into the page's code.
            fields.retain(|(name, value)| {
                *name != "location" || !serde_json::from_str::<&str>(value).is_ok_and(served_from_dependencies)
            });
        }
        Ok(Item { id, tab, ts, fields, relative_time: self.relative_time })
    }
}

/// An error's compact fields without what its originals say again: the raw `stack` where `frames`
/// lists the original frames, the raw `location` where `at` says where (an original location, or
/// the page's own frame that could not be mapped). Two places for
/// one line read as two lines (a review's agent took them so); a drill-down has both.
fn drop_raw_beside_originals(fields: &mut Vec<(&'static str, String)>) {
    let has = |name: &str| fields.iter().any(|(n, _)| *n == name);
    let (at, frames) = (has("at"), has("frames"));
    fields.retain(|(name, _)| match *name {
        "stack" => !frames,
        "location" => !at,
        _ => true,
    });
}

/// A compact entry before rendering.
#[derive(Debug, Clone)]
pub struct Item {
    pub id: i64,
    pub tab: Option<i64>,
    pub ts: Option<i64>,
    /// Field name and its JSON text, in output order.
    pub fields: Vec<(&'static str, String)>,
    relative_time: bool,
}

impl Item {
    /// `{"id":…,"t":…,<fields>}`, without the fields said in `common`.
    pub fn render(&self, common: &Common) -> String {
        let mut out = String::with_capacity(64 + self.fields.iter().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>());
        out.push_str("{\"id\":");
        out.push_str(&self.id.to_string());
        if self.relative_time
            && let (Some(ts), Some(t0)) = (self.ts, common.t0)
        {
            out.push_str(",\"t\":");
            out.push_str(&ts.saturating_sub(t0).to_string());
        }
        for (name, value) in &self.fields {
            if common.fields.iter().any(|(n, _)| n == name) {
                continue;
            }
            out.push_str(",\"");
            out.push_str(name);
            out.push_str("\":");
            out.push_str(value);
        }
        out.push('}');
        out
    }
}

/// Epoch ms from 2000 to 2100: the times a page's clock gives.
const PLAUSIBLE_TS: std::ops::Range<i64> = 946_684_800_000..4_102_444_800_000;

/// What every entry of an answer shares, and the time `t` counts from.
#[derive(Debug, Clone, Default)]
pub struct Common {
    pub t0: Option<i64>,
    pub fields: Vec<(&'static str, String)>,
}

impl Common {
    /// Fields with the same value in every item (of two or more), and the earliest time: of the
    /// times a clock of this century gives, where there are any, so that one entry dated 1970 or
    /// 31,000 BC by a broken page does not make every other `t` a 16-digit number.
    pub fn of(items: &[Item]) -> Common {
        let t0 = if items.iter().any(|i| i.relative_time) {
            let times = || items.iter().filter_map(|i| i.ts);
            times().filter(|t| PLAUSIBLE_TS.contains(t)).min().or_else(|| times().min())
        } else {
            None
        };
        let mut fields = Vec::new();
        if let [first, rest @ ..] = items
            && !rest.is_empty()
        {
            for (name, value) in &first.fields {
                if rest.iter().all(|item| item.fields.iter().any(|(n, v)| n == name && v == value)) {
                    fields.push((*name, value.clone()));
                }
            }
        }
        Common { t0, fields }
    }

    /// The `common` object, or None when there is nothing to say.
    pub fn json(&self) -> Option<String> {
        if self.t0.is_none() && self.fields.is_empty() {
            return None;
        }
        let mut out = String::from("{");
        if let Some(t0) = self.t0 {
            out.push_str(&format!("\"t0\":{t0},\"t0_utc\":\"{}\"", utc(t0)));
        }
        for (name, value) in &self.fields {
            if out.len() > 1 {
                out.push(',');
            }
            out.push_str(&format!("\"{name}\":{value}"));
        }
        out.push('}');
        Some(out)
    }
}

/// `ms` since the epoch as RFC 3339 UTC with milliseconds; a time RFC 3339
/// cannot say (before 1970, after 9999: a client's clock or a hostile value)
/// says so instead.
pub fn utc(ms: i64) -> String {
    const LAST: i64 = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
    if !(0..=LAST).contains(&ms) {
        return format!("(not a date: {ms} ms)");
    }
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms as u64);
    humantime::format_rfc3339_millis(time).to_string()
}

/// "source:line:column" of an `original` object that is not library code (or of any, when `any`).
fn original_text(original: &Value, any: bool) -> Option<String> {
    let source = original.get("source")?.as_str()?;
    if !any && original.get("ignored").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let line = original.get("line")?.as_u64()?;
    // A map that gives lines alone gives no column.
    let place = match original.get("column").and_then(Value::as_u64) {
        Some(column) => format!("{}:{line}:{column}", cut(source)),
        None => format!("{}:{line}", cut(source)),
    };
    // Of one of the page's webpack builds, where it runs more than one (Module Federation).
    let place = match original.get("build").and_then(Value::as_str) {
        Some(build) => format!("{place} (in {})", cut(build)),
        None => place,
    };
    // A line of the version that ran, the file saved again since: the file as it is has moved on.
    Some(if original.get("edited").and_then(Value::as_bool) == Some(true) {
        format!("{place} {EDITED}")
    } else {
        place
    })
}

/// What follows the place of a line that ran before its file was saved again.
pub const EDITED: &str = "(edited since)";

/// How an entry's `at` is chosen.
#[derive(Clone, Copy)]
struct Placing {
    /// A library's original location may be it, where no frame of the page's own maps.
    library: bool,
    /// Its frames are a stack (a logged Error's, an uncaught one's, console.trace's), not the
    /// callers of a call: where the error was made comes before where it was logged.
    thrown_first: bool,
}

/// The `at` of a logs entry or a failed request: its call site's original location, else its
/// first original stack frame (or caller) outside library code (the stack's first, where the
/// entry has one: a logged Error says where it was made, as an uncaught one does, and the line
/// that logged it, a query client's `onError`, is its call site); else, where a call site or frame
/// could not be mapped (its `sourcemap` says why: a module that failed to compile, a map that
/// could not be had), its own location, most likely the page's own code, rather than library code
/// standing in for it (the call site before the frames: it is where it happened); else any
/// original one. Code that ran from a hot update gets none: the raw location stands.
fn original_at(
    original: Option<&RawValue>,
    frames: Option<&RawValue>,
    reason: Option<&RawValue>,
    location: Option<&RawValue>,
    placing: Placing,
) -> Option<String> {
    let original: Option<Value> = original.and_then(|raw| serde_json::from_str(raw.get()).ok());
    let frames: Vec<Value> = frames.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default();
    let reason = reason.and_then(|r| serde_json::from_str::<&str>(r.get()).ok());
    let location = location.and_then(|r| serde_json::from_str::<String>(r.get()).ok());
    at_text(original.as_ref(), &frames, reason, location.as_deref(), placing).map(|at| json_string(&at))
}

/// [`original_at`] of the parsed fields, as text.
fn at_text(
    original: Option<&Value>,
    frames: &[Value],
    reason: Option<&str>,
    location: Option<&str>,
    placing: Placing,
) -> Option<String> {
    let originals = || original.into_iter().chain(frames.iter().filter_map(|f| f.get("original")));
    // Asked only when no original outside library code was found.
    let hot = || {
        let hot_update = |v: Option<&str>| v == Some(kind::HOT_UPDATE_REASON);
        hot_update(reason) || frames.iter().any(|f| hot_update(f.get("sourcemap").and_then(Value::as_str)))
    };
    let unmapped = || {
        let site = location.filter(|_| original.is_none() && reason.is_some());
        let frames = frames
            .iter()
            .filter(|f| f.get("original").is_none() && f.get("sourcemap").is_some())
            .filter(|f| f.get("sourcemap").and_then(Value::as_str) != Some(kind::BUNDLER_CODE_REASON))
            .filter_map(|f| f.get("at")?.as_str());
        site.into_iter().chain(frames).find(|at| !served_from_dependencies(at))
    };
    app_at(original, frames, placing.thrown_first).or_else(|| {
        if hot() {
            None
        } else {
            unmapped()
                .map(|at| cut(at).into_owned())
                .or_else(|| if placing.library { originals().find_map(|o| original_text(o, true)) } else { None })
        }
    })
}

/// Where a whole logs entry or failed request (as stored, with its source-mapped fields) happened, for a person's
/// line: its `at` as compact entries give it, else its call site as the page saw it.
pub fn at_of(entry: &Value) -> Option<String> {
    place_of(entry, true)
}

/// Where the page's code made a request (as stored): [`at_of`], but never a library's place (a
/// framework's client makes every route's requests from the same line of its own).
pub fn request_at_of(entry: &Value) -> Option<String> {
    place_of(entry, false)
}

/// [`at_of`] of a stored entry; `library`: a library's place (original or raw) may be it.
fn place_of(entry: &Value, library: bool) -> Option<String> {
    // A field given as null (the summary's `json_object` of a row without it) is one not given.
    let entry_field = |name: &str| entry.get(name).filter(|v| !v.is_null());
    let frames = entry.get("frames").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let location = entry.get("location").and_then(Value::as_str);
    let placing = Placing { library, thrown_first: entry.get("stack").is_some() };
    // The call site as the page saw it, unless a library's: by its script's URL, or by its map
    // (its original on the ignore list, Next's router making a Server Action's request).
    let ignored = entry_field("original").and_then(|o| o.get("ignored")).and_then(Value::as_bool) == Some(true);
    at_text(entry_field("original"), frames, entry_field("sourcemap").and_then(Value::as_str), location, placing)
        .or_else(|| {
            location.filter(|l| library || !(ignored || served_from_dependencies(l))).map(|l| cut(l).into_owned())
        })
}

/// Where a whole entry happened in the page's own code: its original location outside library
/// code (its call site's, else a frame's), or None when no map gave one.
pub fn app_at_of(entry: &Value) -> Option<String> {
    let frames = entry.get("frames").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    app_at(entry.get("original"), frames, entry.get("stack").is_some())
}

/// The first original location outside library code: the call site's, else a frame's; a frame's
/// first where they are a stack (`thrown_first`, [`Placing`]).
fn app_at(original: Option<&Value>, frames: &[Value], thrown_first: bool) -> Option<String> {
    let of_frames = frames.iter().filter_map(|f| f.get("original"));
    if thrown_first {
        of_frames.chain(original).find_map(|o| original_text(o, false))
    } else {
        original.into_iter().chain(of_frames).find_map(|o| original_text(o, false))
    }
}

/// A raw frame ("url:line:col") of a script that is library code by its URL
/// ([`kind::is_library_segment`]: Vite's prebundled `/node_modules/.vite/deps/chunk-….js`,
/// `/@vite/client`), even where it could not be mapped.
pub(super) fn served_from_dependencies(at: &str) -> bool {
    let path = at.split_once('?').map_or(at, |(path, _)| path);
    path.split('/').any(kind::is_library_segment)
}

/// An error's first original frames outside library code, one line each
/// ("App src/App.jsx:12:9"), with how many library frames were left out. A frame of the page's
/// origin that could not be mapped keeps its place, with its own location and why
/// ("validateCheckout http://…/x.js:14:27 (not mapped: not found)"): left out, the frame that
/// threw would read as its caller. One of another origin counts as library code.
fn original_frames(frames: Option<&RawValue>) -> Option<String> {
    let frames: Vec<Value> = serde_json::from_str(frames?.get()).ok()?;
    let mut lines = Vec::new();
    let mut mapped = false;
    let mut library = 0;
    for frame in &frames {
        let stack_name = frame.get("fn").and_then(Value::as_str);
        let line = match frame.get("original") {
            Some(original) => match original_text(original, false) {
                Some(at) => {
                    mapped = true;
                    // The original function's name where the map gave one back for a minified name.
                    named(original.get("function").and_then(Value::as_str).or(stack_name), at)
                }
                None => {
                    library += 1;
                    continue;
                }
            },
            None => {
                let why = frame.get("sourcemap").and_then(Value::as_str);
                let Some((at, why)) = frame.get("at").and_then(Value::as_str).zip(why) else { continue };
                if why == kind::NOT_IN_SCOPE_REASON || why == kind::BUNDLER_CODE_REASON || served_from_dependencies(at)
                {
                    library += 1;
                    continue;
                }
                named(stack_name, format!("{} (not mapped: {why})", cut(at)))
            }
        };
        if lines.len() < COMPACT_FRAMES {
            lines.push(line);
        }
    }
    if !mapped {
        return None; // the compact `at` says where, raw
    }
    if library > 0 {
        let s = if library == 1 { "" } else { "s" };
        lines.push(format!("… ({library} library frame{s} left out)"));
    }
    Some(json_string(&lines.join("\n")))
}

/// A frame's line: its function's name, if any, before where it is.
fn named(function: Option<&str>, at: String) -> String {
    match function {
        Some(f) => format!("{} {at}", cut(f)),
        None => at,
    }
}

/// A stored value found for a field.
enum Found<'a> {
    Int(i64),
    Real(f64),
    Text(Cow<'a, str>),
    Raw(&'a RawValue),
}

impl Found<'_> {
    /// Whether it is the number 0.
    fn is_zero(&self) -> bool {
        match self {
            Found::Int(v) => *v == 0,
            Found::Real(v) => *v == 0.0,
            Found::Text(_) => false,
            Found::Raw(raw) => raw.get().parse::<f64>().is_ok_and(|v| v == 0.0),
        }
    }

    /// As JSON text, as stored.
    fn stored(&self) -> String {
        match self {
            Found::Int(v) => v.to_string(),
            Found::Real(v) => serde_json::to_string(v).unwrap_or_else(|_| "null".into()),
            Found::Text(t) => json_string(t),
            Found::Raw(raw) => raw.get().to_string(),
        }
    }

    /// As JSON text in `shape`; `sent`: the length the page sent a text that ingest cut.
    fn render(&self, shape: Shape, sent: Option<usize>) -> String {
        match self {
            Found::Int(v) => v.to_string(),
            Found::Real(v) => number(*v),
            Found::Text(t) => text(t, shape, sent),
            Found::Raw(raw) => {
                let json = raw.get();
                match json.as_bytes().first() {
                    Some(b'"') => match serde_json::from_str::<String>(json) {
                        Ok(s) => text(&s, shape, sent),
                        Err(_) => json.to_string(),
                    },
                    Some(b'-' | b'0'..=b'9') => json.parse::<f64>().map_or_else(|_| json.to_string(), number),
                    _ if shape == Shape::Length => "null".into(),
                    _ => json.to_string(),
                }
            }
        }
    }
}

/// A number with no more digits than a person reads: 0.1 ms above 1, three decimals below.
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return "null".into();
    }
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        return (v as i64).to_string();
    }
    let rounded = if v.abs() >= 1.0 { (v * 10.0).round() / 10.0 } else { (v * 1000.0).round() / 1000.0 };
    if rounded.fract() == 0.0 && rounded.abs() < 9.0e15 {
        return (rounded as i64).to_string();
    }
    serde_json::to_string(&rounded).unwrap_or_else(|_| "null".into())
}

/// A string field in compact form, as JSON text; `sent`: its length as the page sent it, where
/// ingest cut it (what a length and a cut count from).
fn text(s: &str, shape: Shape, sent: Option<usize>) -> String {
    match shape {
        Shape::Length => sent.unwrap_or_else(|| s.chars().count()).to_string(),
        Shape::Frames(n) => {
            // A message of several lines (React's hydration error) would otherwise fill the view
            // with what `message` already says, and show no frame.
            let first_frame = s.lines().position(|line| line.trim_start().starts_with("at "));
            let lines: Vec<&str> = s.lines().skip(first_frame.unwrap_or(0)).collect();
            let mut head: String = lines.iter().take(n).copied().collect::<Vec<_>>().join("\n");
            if lines.len() > n {
                head.push_str(&format!("\n… (+{} lines)", lines.len() - n));
            }
            json_string(&cut(&head))
        }
        Shape::Whole | Shape::Bytes => match sent {
            Some(sent) => json_string(&cut_sent(s, sent)),
            None => json_string(&cut(s)),
        },
        // A logged message is cut as a shown text is, once its objects are written as literals.
        Shape::Logged => text(&super::literal::literals(s), Shape::Shown, sent),
        Shape::Shown => match sent {
            Some(sent) => json_string(&cut_sent(s, sent)),
            None => json_string(&cut_middle(s)),
        },
    }
}

/// [`cut`] of a text ingest cut from `sent` bytes (its `_truncated` length, in UTF-8 bytes as
/// ingest counts): the count runs to what the page sent, in bytes.
pub fn cut_sent(s: &str, sent: usize) -> Cow<'_, str> {
    let at = s.char_indices().nth(TEXT_CAP).map_or(s.len(), |(at, _)| at);
    if at == s.len() && sent <= s.len() {
        return Cow::Borrowed(s);
    }
    Cow::Owned(format!("{}… (+{} bytes sent)", &s[..at], sent.saturating_sub(at)))
}

/// At most TEXT_CAP characters, saying how many more there were.
pub fn cut(s: &str) -> Cow<'_, str> {
    cut_at(s, TEXT_CAP)
}

/// Characters a long message keeps of its end.
const MESSAGE_TAIL: usize = 150;

/// A message of more than TEXT_CAP characters as its start and its end, saying how many were left
/// out between: an error often says what went wrong last (React's hydration error ends with the
/// server's and the client's text, after a paragraph of advice).
fn cut_middle(s: &str) -> Cow<'_, str> {
    let total = s.chars().count();
    if total <= TEXT_CAP {
        return Cow::Borrowed(s);
    }
    let head = TEXT_CAP - MESSAGE_TAIL;
    let (Some((head_end, _)), Some((tail_start, _))) =
        (s.char_indices().nth(head), s.char_indices().nth(total - MESSAGE_TAIL))
    else {
        return cut(s);
    };
    Cow::Owned(format!("{}… (+{} chars) …{}", &s[..head_end], total - TEXT_CAP, &s[tail_start..]))
}

/// At most `cap` characters, saying how many more there were.
fn cut_at(s: &str, cap: usize) -> Cow<'_, str> {
    match s.char_indices().nth(cap) {
        None => Cow::Borrowed(s),
        Some((at, _)) => Cow::Owned(format!("{}… (+{} chars)", &s[..at], s[at..].chars().count())),
    }
}

/// `answer` with its long texts (URLs, messages) cut harder and harder until it fits `budget`:
/// the last resort of an answer of a fixed shape (summary, compare) whose lists are already at
/// their shortest. When even that does not fit, what its shortest form costs (the least budget
/// the answer needs).
fn fitted_by_cutting(answer: serde_json::Value, budget: super::budget::Budget) -> Result<String, super::budget::Cost> {
    let mut answer = answer;
    let mut least = super::budget::Cost { chars: 0, tokens: 0 }; // set by the first cut below
    for cap in [200, 80, 40] {
        cut_strings(&mut answer, cap);
        let text = answer.to_string();
        least = super::budget::Cost::of(&text);
        if budget.admits(least) {
            return Ok(text);
        }
    }
    Err(least)
}

/// The answer `build` makes with lists of at most `top` items, for each of `tops` (longest
/// first) until one fits `budget`; the last (`top` 0) with its strings cut as a last resort.
/// `Err(least)` when nothing fits: what the smallest form tried costs.
pub fn first_fitting<E>(
    tops: &[usize],
    budget: super::budget::Budget,
    mut build: impl FnMut(usize) -> Result<serde_json::Map<String, serde_json::Value>, E>,
) -> Result<Result<String, super::budget::Cost>, E> {
    let mut least = None;
    for &top in tops {
        let answer = serde_json::Value::Object(build(top)?);
        let text = answer.to_string();
        if budget.admits(super::budget::Cost::of(&text)) {
            return Ok(Ok(text));
        }
        if top == 0 {
            return Ok(fitted_by_cutting(answer, budget));
        }
        least = Some(super::budget::Cost::of(&text));
    }
    Ok(Err(least.unwrap_or(super::budget::Cost { chars: 0, tokens: 0 })))
}

/// The refusal of an answer that does not fit the budget even in its smallest form, saying
/// what that form takes, so that the agent knows what to ask for.
pub fn too_small(what: &str, least: super::budget::Cost, args: &super::args::ObserveArgs) -> super::QueryError {
    // What the answer's neighbours (the capture note, the viewer's link) take comes on top.
    let least = least.plus(args.extras.reserved);
    super::QueryError::Invalid(format!(
        "the {what} does not fit max_tokens={} / max_chars={}: its smallest form takes about {} tokens and {} characters; ask again with at least that",
        args.max_tokens, args.max_chars, least.tokens, least.chars
    ))
}

/// The answer `build` makes with list `i` holding `tops[i]` of its `lens[i]` items: every list
/// grown by one item a round (so that a list of large items never starves a list of small
/// ones), each up to `most` or until its next item does not fit `budget`; with every list empty
/// and its strings cut when even that does not fit; `Err(least)` when nothing fits.
pub fn filled_lists<E>(
    lens: &[usize],
    most: usize,
    budget: super::budget::Budget,
    mut build: impl FnMut(&[usize]) -> Result<serde_json::Map<String, serde_json::Value>, E>,
) -> Result<Result<String, super::budget::Cost>, E> {
    let mut tops = vec![0; lens.len()];
    let empty = serde_json::Value::Object(build(&tops)?);
    let mut fitted = empty.to_string();
    if !budget.admits(super::budget::Cost::of(&fitted)) {
        return Ok(fitted_by_cutting(empty, budget));
    }
    // A list stops growing at its length, at `most`, or at the first item that does not fit (the
    // answer only grows, so that item would never fit later).
    let mut open: Vec<bool> = lens.iter().map(|len| *len > 0 && most > 0).collect();
    while open.contains(&true) {
        for i in 0..lens.len() {
            if !open[i] {
                continue;
            }
            tops[i] += 1;
            let text = serde_json::Value::Object(build(&tops)?).to_string();
            if budget.admits(super::budget::Cost::of(&text)) {
                fitted = text;
                open[i] = tops[i] < lens[i].min(most);
            } else {
                tops[i] -= 1;
                open[i] = false;
            }
        }
    }
    Ok(Ok(fitted))
}

/// Every string inside `value` (keys aside) cut at `cap` characters.
fn cut_strings(value: &mut serde_json::Value, cap: usize) {
    match value {
        serde_json::Value::String(s) => {
            if let Cow::Owned(cut) = cut_at(s, cap) {
                *s = cut;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| cut_strings(v, cap)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| cut_strings(v, cap)),
        _ => {}
    }
}

pub(super) fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request only library code made names no place of the page's, whether its script's URL or
    /// its map says it is a library's (Next's router sending a Server Action from a Turbopack chunk).
    #[test]
    fn a_request_a_library_made_has_no_at() {
        let by_map = serde_json::json!({"location": "http://localhost:3000/_next/static/chunks/app_a1._.js:11741:12",
            "original": {"source": "node_modules/next/src/client/components/segment-cache/fetch.ts", "line": 5, "ignored": true}});
        assert_eq!(request_at_of(&by_map), None);
        let by_name = serde_json::json!({"location": "http://localhost:3000/_next/static/chunks/node_modules_next_dist_client_14zvornz047l2._.js:11741:12"});
        assert_eq!(request_at_of(&by_name), None);
        let own = serde_json::json!({"location": "http://localhost:3000/_next/static/chunks/app_page_tsx._.js:8:21"});
        assert_eq!(
            request_at_of(&own).as_deref(),
            Some("http://localhost:3000/_next/static/chunks/app_page_tsx._.js:8:21")
        );
    }

    #[test]
    fn numbers_are_rounded_for_reading() {
        assert_eq!(number(21.30000000004657), "21.3");
        assert_eq!(number(0.012345), "0.012");
        assert_eq!(number(1500.0), "1500");
        assert_eq!(number(99.96), "100");
        assert_eq!(number(f64::NAN), "null");
    }

    #[test]
    fn long_text_is_cut_and_says_by_how_much() {
        let long = "x".repeat(TEXT_CAP + 10);
        assert!(text(&long, Shape::Whole, None).ends_with("… (+10 chars)\""));
        assert_eq!(text("a\nb\nc\nd\ne", Shape::Frames(2), None), "\"a\\nb\\n… (+3 lines)\"");
        // A message of several lines: the frames, not the message again.
        let stack = "Error: Hydration failed\n\n  <Clock>\n+ 10:01\n- 10:02\n    at throwOnHydrationMismatch (http://x/react-dom.js:1:2)\n    at f (http://x/a.js:3:4)";
        assert_eq!(
            text(stack, Shape::Frames(1), None),
            "\"    at throwOnHydrationMismatch (http://x/react-dom.js:1:2)\\n… (+1 lines)\""
        );
        assert_eq!(text("héllo", Shape::Length, None), "5");
        // A long message keeps its start and its end.
        let message = format!("Hydration failed {} + 10:01 - 10:02", "advice ".repeat(100));
        let shown: String = serde_json::from_str(&text(&message, Shape::Logged, None)).unwrap();
        assert!(shown.starts_with("Hydration failed advice") && shown.ends_with("advice  + 10:01 - 10:02"), "{shown}");
        assert!(shown.contains(&format!("… (+{} chars) …", message.chars().count() - TEXT_CAP)), "{shown}");
        assert_eq!(
            shown.chars().count(),
            TEXT_CAP + format!("… (+{} chars) …", message.chars().count() - TEXT_CAP).chars().count()
        );
        // A page's text is cut as a message, its start and its end, but keeps its code as it was:
        // Python's `item["price"]` is not a logged array to write as `['price']`.
        let page = format!("TypeError at /items/2\n{}total = item[\"price\"] * qty", "frame\n".repeat(200));
        let shown: String = serde_json::from_str(&text(&page, Shape::Shown, None)).unwrap();
        assert!(
            shown.starts_with("TypeError at /items/2") && shown.ends_with("total = item[\"price\"] * qty"),
            "{shown}"
        );
        assert!(shown.contains("… (+"), "{shown}");
        // A text ingest cut: counted to the bytes the page sent.
        assert!(text(&long, Shape::Whole, Some(20_000)).ends_with(&format!("… (+{} bytes sent)\"", 20_000 - TEXT_CAP)));
        assert_eq!(text("héllo", Shape::Length, Some(20_000)), "20000");
        assert_eq!(cut_sent("short", 9), "short… (+4 bytes sent)");
    }

    /// The placing of an entry whose frames are a call's callers (a console call, a request).
    const CALLED: Placing = Placing { library: true, thrown_first: false };

    #[test]
    fn a_logged_error_is_placed_where_it_was_made_and_a_call_where_it_was_made() {
        let raw = |json: &str| RawValue::from_string(json.to_string()).expect("JSON");
        // console.error(error) in a query client's onError: the call site is the logger's line,
        // the error's stack says where it was made.
        let logger = raw(r#"{"source":"src/main.tsx","line":10,"column":5}"#);
        let stack = raw(r#"[{"at":"x","original":{"source":"node_modules/q/index.js","line":1,"ignored":true}},
                {"at":"y","original":{"source":"src/api.ts","line":5,"column":11}}]"#);
        let thrown = Placing { library: true, thrown_first: true };
        assert_eq!(
            original_at(Some(&logger), Some(&stack), None, None, thrown).as_deref(),
            Some(r#""src/api.ts:5:11""#)
        );
        assert_eq!(
            original_at(Some(&logger), Some(&stack), None, None, CALLED).as_deref(),
            Some(r#""src/main.tsx:10:5""#)
        );
        // A stack of library code alone (an error a library made): where the app logged it.
        let library = raw(r#"[{"at":"x","original":{"source":"node_modules/q/index.js","line":1,"ignored":true}}]"#);
        assert_eq!(
            original_at(Some(&logger), Some(&library), None, None, thrown).as_deref(),
            Some(r#""src/main.tsx:10:5""#)
        );
    }

    #[test]
    fn the_original_location_outside_library_code_leads() {
        let raw = |json: &str| RawValue::from_string(json.to_string()).expect("JSON");
        let lib = raw(r#"{"source":"node_modules/react-dom/index.js","line":5,"column":2,"ignored":true}"#);
        let frames = raw(r#"[{"at":"x","sourcemap":"not found"},
                {"at":"y","fn":"App","original":{"source":"src/App.jsx","line":9,"column":11}},
                {"at":"z","fn":"render","original":{"source":"node_modules/react-dom/index.js","line":7,"column":1,"ignored":true}}]"#);
        assert_eq!(
            original_at(Some(&lib), Some(&frames), None, None, CALLED).as_deref(),
            Some(r#""src/App.jsx:9:11""#)
        );
        let edited = raw(r#"[{"at":"y","original":{"source":"src/App.jsx","line":9,"column":11,"edited":true}}]"#);
        assert_eq!(
            original_at(Some(&lib), Some(&edited), None, None, CALLED).as_deref(),
            Some(r#""src/App.jsx:9:11 (edited since)""#)
        );
        // The page's own frame could not be mapped (its module failed to compile): its own
        // location, not the library's call site (a framework's console wrapper).
        let unmapped =
            raw(r#"[{"at":"http://localhost:5173/src/lib/Debugger.svelte?t=1:75:13","sourcemap":"not found"}]"#);
        assert_eq!(
            original_at(Some(&lib), Some(&unmapped), None, None, CALLED).as_deref(),
            Some(r#""http://localhost:5173/src/lib/Debugger.svelte?t=1:75:13""#)
        );
        assert_eq!(
            original_at(Some(&lib), None, None, None, CALLED).as_deref(),
            Some(r#""node_modules/react-dom/index.js:5:2""#)
        );
        // A prebundled dependency that could not be mapped is library code, not the page's own.
        let deps = raw(
            r#"[{"at":"http://localhost:5173/node_modules/.vite/deps/chunk-HNQZ3SC5.js?v=c6ce9bc8:8:50","sourcemap":"out of range"}]"#,
        );
        assert_eq!(
            original_at(Some(&lib), Some(&deps), None, None, CALLED).as_deref(),
            Some(r#""node_modules/react-dom/index.js:5:2""#)
        );
        assert_eq!(original_at(None, None, None, None, CALLED), None);
        // A library a server-rendered app serves as a file of its own (an import map's /vendor/, htmx
        // from /static/) reports the page's error from its own frames: `at` is the page's line.
        let stimulus = raw(r#"[{"at":"http://localhost:3000/vendor/stimulus.js:2148:21","sourcemap":"not found"},
                {"at":"http://localhost:3000/js/controllers/chart_controller.js:5:56","sourcemap":"not found"}]"#);
        let logger = raw(r#""http://localhost:3000/vendor/stimulus.js:2148:21""#);
        assert_eq!(
            original_at(None, Some(&stimulus), Some(&raw(r#""not found""#)), Some(&logger), CALLED).as_deref(),
            Some(r#""http://localhost:3000/js/controllers/chart_controller.js:5:56""#)
        );
        let htmx = raw(r#"[{"at":"http://127.0.0.1:5000/static/htmx.min.js:1:23203","sourcemap":"not found"},
                {"at":"http://127.0.0.1:5000/static/app.js:9:3","sourcemap":"not found"}]"#);
        assert_eq!(
            original_at(None, Some(&htmx), None, None, CALLED).as_deref(),
            Some(r#""http://127.0.0.1:5000/static/app.js:9:3""#)
        );
        // The page's own code ran from a hot update (unmapped): no library frame stands in for it.
        let hot = raw(r#""hot update""#);
        assert_eq!(
            original_at(
                None,
                Some(&raw(
                    r#"[{"at":"z","original":{"source":"node_modules/react-dom/index.js","line":7,"column":1,"ignored":true}}]"#
                )),
                Some(&hot),
                None,
                CALLED
            ),
            None
        );
        // A call site that could not be mapped is where it happened: not its first caller.
        let callers = raw(r#"[{"at":"http://x/main.js:20:1","sourcemap":"not found"}]"#);
        let site = raw(r#""http://x/cart.js:5:9""#);
        assert_eq!(
            original_at(None, Some(&callers), Some(&raw(r#""not found""#)), Some(&site), CALLED).as_deref(),
            Some(r#""http://x/cart.js:5:9""#)
        );
        assert_eq!(
            original_at(None, Some(&callers), None, None, CALLED).as_deref(),
            Some(r#""http://x/main.js:20:1""#)
        );
        // django-debug-toolbar's wrapper of fetch is the call site's first frame: library code,
        // the page's line after it; the same read from a summary's row, which names no original.
        let toolbar = serde_json::json!({"location": "http://127.0.0.1:8000/static/debug_toolbar/js/toolbar.js:347:39",
            "sourcemap": "not found", "frames": [{"at": "http://127.0.0.1:8000/static/shop/app.js:22:23", "sourcemap": "not found"}]});
        assert_eq!(request_at_of(&toolbar).as_deref(), Some("http://127.0.0.1:8000/static/shop/app.js:22:23"));
        let mut from_summary = toolbar.clone();
        from_summary["original"] = serde_json::Value::Null;
        assert_eq!(request_at_of(&from_summary), request_at_of(&toolbar));
        let mut own_wrapper = toolbar.clone();
        own_wrapper["location"] = serde_json::json!("http://x/api.js:5:9");
        own_wrapper["original"] = serde_json::Value::Null;
        assert_eq!(
            request_at_of(&own_wrapper).as_deref(),
            Some("http://x/api.js:5:9"),
            "a page's own wrapper is where"
        );
        let hot_frames = raw(r#"[{"at":"x","sourcemap":"hot update"},
                {"at":"z","fn":"render","original":{"source":"node_modules/react-dom/index.js","line":7,"column":1,"ignored":true}}]"#);
        assert_eq!(original_at(None, Some(&hot_frames), None, None, CALLED), None);
        assert_eq!(
            original_frames(Some(&frames)).as_deref(),
            Some(r#""x (not mapped: not found)\nApp src/App.jsx:9:11\n… (1 library frame left out)""#)
        );
        assert_eq!(original_frames(Some(&raw(r#"[{"at":"x","sourcemap":"invalid"}]"#))), None);
        // The frame that threw could not be mapped: it keeps its place, with its own location and
        // why; a frame of another origin counts as library code.
        let thrown_unmapped =
            raw(r#"[{"at":"/__parcel_hmr/1a2b:14:27","fn":"validateCheckout","sourcemap":"not found"},
                {"at":"y","fn":"handleCheckout","original":{"source":"src/App.tsx","line":25,"column":20}},
                {"at":"https://cdn.example/lib.js:1:2","sourcemap":"not in scope"}]"#);
        assert_eq!(
            original_frames(Some(&thrown_unmapped)).as_deref(),
            Some(
                r#""validateCheckout /__parcel_hmr/1a2b:14:27 (not mapped: not found)\nhandleCheckout src/App.tsx:25:20\n… (1 library frame left out)""#
            )
        );
        // A minified function's original name, where the map gave it back, stands for the stack's.
        let minified = raw(
            r#"[{"at":"y","fn":"c","original":{"source":"src/cart.js","line":6,"column":11,"function":"checkout"}}]"#,
        );
        assert_eq!(original_frames(Some(&minified)).as_deref(), Some(r#""checkout src/cart.js:6:11""#));
    }

    #[test]
    fn utc_is_rfc3339() {
        assert_eq!(utc(1_732_380_000_123), "2024-11-23T16:40:00.123Z");
        assert_eq!(utc(i64::MAX), format!("(not a date: {} ms)", i64::MAX));
        assert_eq!(utc(-5), "(not a date: -5 ms)");
    }
}
