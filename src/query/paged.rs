//! A page of one kind's entries: offsets, cursors both ways, totals,
//! eviction counts, the budget, compact entries and hints.

use rusqlite::{Connection, params_from_iter};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::args::{self, ObserveArgs};
use super::budget::{self, Cost, fit};
use super::compact::{Common, Item, Layout};
use super::context;
use super::count::Counter;
use super::entry;
use super::filter::{Where, select_list};
use super::summary;
use super::{QueryError, internal, with_list};
use crate::kind::Kind;
use crate::store::sql::{KindStats, kind_stats, tracked_tab};

/// The metadata of a paginated answer; `common` and `entries` follow it.
#[derive(Debug, Serialize)]
struct Meta {
    what: &'static str,
    count: usize,
    total: i64,
    offset: i64,
    limit: i64,
    has_more: bool,
    next_offset: Option<i64>,
    cursor: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    prev_cursor: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    has_older: Option<bool>,
    oldest_id: Option<i64>,
    newest_id: Option<i64>,
    tracked_tab_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filtered_by_tab: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_entries_all_tabs: Option<i64>,
    /// The tab's entries before the other filters, when they left none of them (for the hint).
    #[serde(skip)]
    tab_unfiltered: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evicted_since_cursor: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cleared_since_cursor: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    navigation: Option<Value>,
    /// For errors: the app's requests that failed in the same scope, said in the hint.
    #[serde(skip)]
    failed_requests: Option<String>,
    /// For errors read without a cursor: how few distinct messages the matches are, said in the
    /// hint when the answer does not show them all.
    #[serde(skip)]
    repeats: Option<String>,
    /// Nothing matched, and a filter's value is held by no entry of the kind: the values that are.
    #[serde(skip)]
    unheld: Option<String>,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    common: Option<Box<RawValue>>,
    /// The budget leaves room for an entry only beside a lean frame: the hint says how to go on
    /// and what was cut, and no more.
    #[serde(skip)]
    lean: bool,
}

/// Which rows to read, in which order, and how many at most.
struct Plan {
    sql: String,
    params: Vec<rusqlite::types::Value>,
    /// The SQL yields rows newest first; they are reversed after reading.
    reversed: bool,
    /// The budget keeps the newest rows (paging backwards) rather than the oldest.
    keep_newest: bool,
    /// Rows read at most (the page size, plus one to learn whether more exist).
    max_rows: i64,
    /// Page size; None means "all that fit".
    page_size: Option<i64>,
}

/// A whole stored entry: its id, text, tab and time.
struct Whole {
    id: i64,
    text: String,
    tab: Option<i64>,
    ts: Option<i64>,
}

/// Rows as read: whole stored entries, or compact items.
enum Rows {
    Full(Vec<Whole>),
    Compact(Vec<Item>),
}

impl Rows {
    fn len(&self) -> usize {
        match self {
            Rows::Full(r) => r.len(),
            Rows::Compact(r) => r.len(),
        }
    }

    fn remove(&mut self, i: usize) {
        match self {
            Rows::Full(r) => {
                r.remove(i);
            }
            Rows::Compact(r) => {
                r.remove(i);
            }
        }
    }

    fn ids(&self) -> Vec<i64> {
        match self {
            Rows::Full(r) => r.iter().map(|w| w.id).collect(),
            Rows::Compact(r) => r.iter().map(|i| i.id).collect(),
        }
    }
}

/// Errors' context is built per entry, only for entries that may be shown.
/// One per fitting of an answer: what its contexts gave in full is given once.
pub(super) struct ErrorContext<'a> {
    pub conn: &'a Connection,
    pub args: &'a ObserveArgs,
    pub shown: context::Shown,
}

impl ErrorContext<'_> {
    pub fn json(&self, id: i64, tab: Option<i64>, ts: Option<i64>) -> Result<String, QueryError> {
        context::of_error(self.conn, id, (tab, ts), self.args.context_ms, self.args.context, &self.shown)
    }

    /// A whole entry's text with `,"context":{…}` spliced before its closing brace.
    pub fn whole(&self, entry_text: &str, id: i64, tab: Option<i64>, ts: Option<i64>) -> Result<String, QueryError> {
        let context = self.json(id, tab, ts)?;
        let mut out = String::with_capacity(entry_text.len() + context.len() + 12);
        out.push_str(&entry_text[..entry_text.len().saturating_sub(1)]);
        out.push_str(",\"context\":");
        out.push_str(&context);
        out.push('}');
        Ok(out)
    }
}

pub fn answer(
    conn: &Connection,
    kind: &'static Kind,
    errors_only: bool,
    args: &ObserveArgs,
    navigation: Option<Value>,
) -> Result<String, QueryError> {
    let stats = kind_stats(conn, kind)?;
    let filter = Where::new(kind, errors_only, args);
    let last_issued = stats.last_issued_id;
    if let Some(c) = args.after_cursor.filter(|c| *c > last_issued) {
        return Err(QueryError::Invalid(format!(
            "after_cursor {c} is beyond the newest id of {} ({last_issued}); poll with after_cursor={last_issued} for new entries",
            kind.name
        )));
    }
    if let Some(c) = args.before_cursor.filter(|c| *c > last_issued + 1) {
        return Err(QueryError::Invalid(format!(
            "before_cursor {c} is beyond the newest id of {} ({last_issued}); send before_cursor={} for the newest entries",
            kind.name,
            last_issued + 1
        )));
    }
    let counter = Counter::new(conn, kind, &filter, &stats);
    let total = counter.in_range(i64::MIN, i64::MAX)?;
    let select = format!("SELECT {} FROM {}", select_list(kind), kind.name);
    // Enough rows to fill any budget: an entry is at least ~8 tokens and ~20 characters.
    let budget_rows = (args.max_tokens / 8).min(args.max_chars / 20) as i64 + 2;
    let page_size = |default: Option<i64>| match args.limit {
        Some(0) => None,
        Some(l) => Some(l),
        None => default,
    };

    let mut gone = None;
    let (plan, offset, reported_limit) = if let Some(c) = args.after_cursor {
        gone = Some(stats.gone_since(c));
        let size = page_size(Some(args::DEFAULT_CURSOR_LIMIT));
        let offset = counter.in_range(i64::MIN, c)?;
        let plan = Plan {
            sql: format!("{select}{} ORDER BY id LIMIT ?", filter.clause(Some("id > ?"))),
            params: filter.params_with(&[c, rows_to_read(size, budget_rows)]),
            reversed: false,
            keep_newest: false,
            max_rows: rows_to_read(size, budget_rows),
            page_size: size,
        };
        (plan, offset, size.unwrap_or(0))
    } else if let Some(c) = args.before_cursor {
        let size = page_size(Some(args::DEFAULT_CURSOR_LIMIT));
        let before = counter.in_range(i64::MIN, c.saturating_sub(1))?;
        let plan = Plan {
            sql: format!("{select}{} ORDER BY id DESC LIMIT ?", filter.clause(Some("id < ?"))),
            params: filter.params_with(&[c, rows_to_read(size, budget_rows)]),
            reversed: true,
            keep_newest: true,
            max_rows: rows_to_read(size, budget_rows),
            page_size: size,
        };
        // The page ends just before the cursor; its start is known once rows are read.
        (plan, before, size.unwrap_or(0))
    } else {
        let requested = args.offset.unwrap_or(0);
        let (start, size) = if requested < 0 {
            (total.saturating_add(requested).max(0), page_size(Some(requested.saturating_neg())))
        } else {
            (requested, page_size(None))
        };
        let plan = offset_plan(&counter, &filter, &stats, &select, start, size, total, budget_rows)?;
        (plan, start, size.unwrap_or(0))
    };

    let layout = Layout::new(kind, errors_only, &args.fields);
    let mut rows = read_rows(conn, kind, &plan, layout.as_ref())?;
    let more_beyond = plan.page_size.is_some_and(|size| rows.len() as i64 > size);
    if more_beyond {
        // The extra row only told us that more exist.
        rows.remove(if plan.reversed { 0 } else { rows.len() - 1 });
    }
    let mut common = match &rows {
        Rows::Compact(items) => Common::of(items),
        Rows::Full(_) => Common::default(),
    };
    let budget = args.budget();
    // What the entries share is said once, in `common`; but never a `common` that alone would not
    // fit the answer (say four copies of one 32-frame stack): the entries then carry it themselves,
    // and are fitted and clipped like any entry.
    if common.json().is_some_and(|c| !budget.admits(Cost::of(&c).plus(Cost::of(&"x".repeat(HINT_RESERVE))))) {
        common = Common::default();
    }
    let tracked_tab_id = tracked_tab(conn)?;
    let failed_requests = if errors_only { context::failed_requests_note(conn, args)? } else { None };
    let first_look = args.after_cursor.is_none() && args.before_cursor.is_none();
    let repeats = if errors_only && first_look && total > 1 { repeats_note(conn, &filter, total)? } else { None };
    let unheld = if total == 0 { super::values::unheld(conn, kind, args)? } else { None };
    // Fitted with `common` first; where what surrounds the entries then leaves no room for one
    // (a long shared URL beside a cursor read's longer metadata at max_chars=1000), once more
    // without it: the entries carry their own fields, and one too large is clipped.
    let mut lean = false;
    'fitting: loop {
        let common_json = common.json();
        let mut meta = Meta {
            what: args.what.name(),
            count: 0,
            total,
            offset,
            limit: reported_limit,
            has_more: true,
            next_offset: Some(i64::MAX),
            cursor: i64::MAX,
            prev_cursor: args.before_cursor.map(|_| i64::MAX),
            has_older: args.before_cursor.map(|_| true),
            oldest_id: stats.oldest_id,
            newest_id: stats.newest_id,
            tracked_tab_id,
            filtered_by_tab: args.tab_id,
            total_entries_all_tabs: args.tab_id.map(|_| stats.count),
            tab_unfiltered: match args.tab_id {
                // What the tab holds of the kind at all: none of it an error, or none matching the filters.
                Some(tab) if total == 0 && (errors_only || filter.narrows_beyond_tab()) => {
                    let tab_only = Where::tab_only(false, Some(tab));
                    Some(Counter::new(conn, kind, &tab_only, &stats).in_range(i64::MIN, i64::MAX)?)
                }
                _ => None,
            },
            evicted_since_cursor: gone.map(|g| g.evicted),
            cleared_since_cursor: gone.map(|g| g.cleared),
            navigation: navigation.clone(),
            failed_requests: if lean { None } else { failed_requests.clone() },
            repeats: if lean { None } else { repeats.clone() },
            unheld: unheld.clone(),
            truncated: true,
            hint: None,
            common: common_json.as_deref().and_then(|c| RawValue::from_string(c.to_string()).ok()),
            lean,
        };
        // Reserve room for the metadata at its largest (the hint this page would get with every
        // number at its longest, and some margin), then fill.
        meta.hint =
            Some(format!("{}{}", hint(&meta, args, kind, Some(i64::MAX)).unwrap_or_default(), "x".repeat(HINT_MARGIN)));
        let reserve = Cost::of(&serde_json::to_string(&meta).map_err(internal)?).plus(Cost::of(",\"entries\":[]"));
        let ids = rows.ids();
        // Entries are built in the order `fit` considers them and only the last one built can be left
        // out (`fit` stops at it; the loop below drops the last kept), so a context that names an
        // entry by an earlier context's id always has that context in the answer.
        let errors = errors_only.then(|| ErrorContext { conn, args, shown: context::Shown::once() });
        let (mut entries, mut cut) =
            fit(&ids, budget.minus(reserve), plan.keep_newest, |i| make_entry(&rows, i, &common, errors.as_ref()))?;
        if !lean && clipped_alone(&entries) {
            // The one entry shown would be clipped: first see whether a lean frame leaves it whole.
            lean = true;
            continue 'fitting;
        }

        loop {
            let left_out = entries.len() < ids.len();
            let text =
                finish(&mut meta, &entries, (cut, left_out), args, kind, offset, total, more_beyond, last_issued)?;
            let cost = Cost::of(&text);
            if entries.is_empty() && !ids.is_empty() {
                if common_json.is_some() {
                    common = Common::default();
                    continue 'fitting;
                }
                if !lean {
                    // A small budget (max_tokens=500) beside a long hint: once more with a lean one.
                    lean = true;
                    continue 'fitting;
                }
                // Something to show and no room for any of it: an empty page would have to say where
                // to go on from, and any cursor it gave would either repeat or skip.
                return Err(no_room(args, cost));
            }
            if budget.admits(cost) || entries.is_empty() {
                return Ok(text);
            }
            if !lean && entries.len() == 1 {
                // One entry left and still too large with what surrounds it: first a lean frame.
                lean = true;
                continue 'fitting;
            }
            if let [(_, only)] = entries.as_mut_slice() {
                // One entry left and still too large with what surrounds it: clip it to the room
                // the rest leaves; once it clips no further, the answer goes without it.
                let entry = Cost::of(only);
                let rest = Cost {
                    chars: cost.chars.saturating_sub(entry.chars),
                    tokens: cost.tokens.saturating_sub(entry.tokens),
                };
                cut = true;
                match budget::clip_entry(only, budget.minus(rest)) {
                    Some(clipped) if clipped.len() < only.len() => *only = clipped,
                    _ => entries.clear(),
                }
                continue;
            }
            // The estimate of the whole ran past the sum of its parts: drop one more.
            if plan.keep_newest {
                entries.remove(0);
            } else {
                entries.pop();
            }
        }
    }
}

/// Whether `entries` is one entry that had to be clipped to fit.
fn clipped_alone(entries: &[(i64, String)]) -> bool {
    matches!(entries, [(_, only)] if entry::is_clipped(only))
}

/// The refusal of an answer whose metadata (`frame`, the answer without entries) leaves no room
/// for one clipped entry: it names the limit that binds.
fn no_room(args: &ObserveArgs, frame: Cost) -> QueryError {
    // The least a clipped entry takes, beside the frame.
    let least = Cost { chars: frame.chars + MIN_ENTRY_CHARS, tokens: frame.tokens + MIN_ENTRY_CHARS / 2 };
    let raise = match (least.chars > args.max_chars, least.tokens > args.max_tokens) {
        (true, true) => "raise max_chars and max_tokens",
        (true, false) => "raise max_chars",
        _ => "raise max_tokens",
    };
    QueryError::Invalid(format!(
        "max_tokens={} and max_chars={} leave no room for one entry beside this answer's metadata (about {} characters, {} tokens); {raise}",
        args.max_tokens, args.max_chars, frame.chars, frame.tokens
    ))
}

/// About the least a clipped entry takes (its identity fields), in characters.
const MIN_ENTRY_CHARS: usize = 64;

fn make_entry(rows: &Rows, i: usize, common: &Common, errors: Option<&ErrorContext<'_>>) -> Result<String, QueryError> {
    Ok(match rows {
        Rows::Full(r) => match errors {
            Some(ctx) => ctx.whole(&r[i].text, r[i].id, r[i].tab, r[i].ts)?,
            None => r[i].text.clone(),
        },
        Rows::Compact(items) => match errors {
            Some(ctx) => {
                let mut item = items[i].clone();
                item.fields.push(("context", ctx.json(item.id, item.tab, item.ts)?));
                item.render(common)
            }
            None => items[i].render(common),
        },
    })
}

/// Fills in the metadata for the entries kept and renders the answer.
#[allow(clippy::too_many_arguments)]
/// `(cut, left_out)`: whether an entry was left out or clipped, and whether one was left out
/// (a clipped last entry leaves nothing more to read).
fn finish(
    meta: &mut Meta,
    entries: &[(i64, String)],
    (cut, left_out): (bool, bool),
    args: &ObserveArgs,
    kind: &Kind,
    offset: i64,
    total: i64,
    more_beyond: bool,
    last_issued: i64,
) -> Result<String, QueryError> {
    let count = entries.len() as i64;
    meta.offset = if args.before_cursor.is_some() { offset - count } else { offset };
    let first_id = entries.first().map(|(id, _)| *id);
    let last_id = entries.last().map(|(id, _)| *id);
    meta.count = entries.len();
    meta.truncated = cut;
    let forward_more = meta.offset + count < total;
    meta.has_more = if args.after_cursor.is_some() { more_beyond || left_out } else { forward_more };
    meta.next_offset = forward_more.then_some(meta.offset + count);
    meta.cursor = match (last_id, args.before_cursor) {
        (Some(id), _) => id,
        // Nothing before the cursor: everything up to it has been seen.
        (None, Some(c)) => c.saturating_sub(1).max(0),
        // Nothing matched up to the newest id: polling from there misses nothing.
        (None, None) => args.after_cursor.unwrap_or(0).max(last_issued),
    };
    if let Some(c) = args.before_cursor {
        meta.prev_cursor = Some(first_id.unwrap_or(c));
        meta.has_older = Some(meta.offset > 0);
    }
    meta.hint = hint(meta, args, kind, first_id);
    let head = serde_json::to_string(meta).map_err(internal)?;
    Ok(with_list(&head, "entries", entries))
}

/// Room kept for the hint when budgeting (hints are shorter than this).
const HINT_RESERVE: usize = 400;
/// Room kept beside the longest hint this page could get (its numbers may change length).
const HINT_MARGIN: usize = 60;

fn rows_to_read(page_size: Option<i64>, budget_rows: i64) -> i64 {
    page_size.map_or(budget_rows, |s| s.min(budget_rows).saturating_add(1))
}

/// Rows for `[start, start + size)` of the matching rows, by the cheapest exact route.
#[allow(clippy::too_many_arguments)]
fn offset_plan(
    counter: &Counter<'_>,
    filter: &Where,
    stats: &KindStats,
    select: &str,
    start: i64,
    size: Option<i64>,
    total: i64,
    budget_rows: i64,
) -> Result<Plan, QueryError> {
    let wanted = size.unwrap_or(i64::MAX).min(total.saturating_sub(start).max(0));
    let max_rows = wanted.min(budget_rows);
    if !filter.is_filtered() && stats.contiguous {
        // Contiguous ids: the row at position `start` has id oldest + start.
        let first = stats.oldest_id.unwrap_or(0).saturating_add(start);
        return Ok(Plan {
            sql: format!("{select} WHERE id >= ? ORDER BY id LIMIT ?"),
            params: vec![first.into(), max_rows.into()],
            reversed: false,
            keep_newest: false,
            max_rows,
            page_size: None,
        });
    }
    if start < total
        && let Some((from_id, skip)) = counter.seek(start)?
    {
        // Bucket counts place the start within one bucket: a short OFFSET from there.
        return Ok(Plan {
            sql: format!("{select}{} ORDER BY id LIMIT ? OFFSET ?", filter.clause(Some("id >= ?"))),
            params: filter.params_with(&[from_id, max_rows, skip]),
            reversed: false,
            keep_newest: false,
            max_rows,
            page_size: None,
        });
    }
    let end = start.saturating_add(wanted);
    Ok(if start > total / 2 && wanted <= budget_rows {
        // Nearer the end: walk the index backwards.
        Plan {
            sql: format!("{select}{} ORDER BY id DESC LIMIT ? OFFSET ?", filter.clause(None)),
            params: filter.params_with(&[wanted, total - end]),
            reversed: true,
            keep_newest: false,
            max_rows,
            page_size: None,
        }
    } else {
        Plan {
            sql: format!("{select}{} ORDER BY id LIMIT ? OFFSET ?", filter.clause(None)),
            params: filter.params_with(&[max_rows, start]),
            reversed: false,
            keep_newest: false,
            max_rows,
            page_size: None,
        }
    })
}

/// Rows in ascending id order, as whole entries or compact items.
fn read_rows(conn: &Connection, kind: &Kind, plan: &Plan, layout: Option<&Layout>) -> Result<Rows, QueryError> {
    let mut stmt = conn.prepare_cached(&plan.sql)?;
    let mut rows = stmt.query(params_from_iter(plan.params.iter()))?;
    let capacity = plan.max_rows.clamp(0, 1024) as usize;
    let mut out = match layout {
        Some(_) => Rows::Compact(Vec::with_capacity(capacity)),
        None => Rows::Full(Vec::with_capacity(capacity)),
    };
    while let Some(row) = rows.next()? {
        match (&mut out, layout) {
            (Rows::Compact(items), Some(layout)) => items.push(layout.item(kind, row)?),
            (Rows::Full(full), _) => full.push(Whole {
                id: row.get(0)?,
                text: entry::entry_json(kind, row)?,
                tab: row.get(1)?,
                ts: row.get(2)?,
            }),
            (Rows::Compact(_), None) => {}
        }
        if out.len() as i64 >= plan.max_rows {
            break;
        }
    }
    if plan.reversed {
        match &mut out {
            Rows::Full(r) => r.reverse(),
            Rows::Compact(r) => r.reverse(),
        }
    }
    Ok(out)
}

fn hint(meta: &Meta, args: &ObserveArgs, kind: &Kind, first_id: Option<i64>) -> Option<String> {
    let mut parts = Vec::new();
    if meta.count == 0 && meta.total == 0 {
        // Nothing matched: capture may be paused, or the page asked about not captured.
        parts.extend(args.extras.empty_hint.clone());
    }
    if let Some(n) = meta.evicted_since_cursor.filter(|n| *n > 0) {
        parts.push(format!(
            "{n} entries after your cursor were trimmed from the ring (capacity reached) before you read them; continuing from the oldest kept"
        ));
    }
    if let Some(n) = meta.cleared_since_cursor.filter(|n| *n > 0) {
        parts.push(format!("{n} entries after your cursor were cleared (configure clear, or deleted by hand)"));
    }
    if let (0, 0, Some(unheld)) = (meta.count, meta.total, &meta.unheld) {
        parts.push(unheld.clone());
    }
    if let (Some(tab), 0, 0) = (meta.filtered_by_tab, meta.count, meta.total) {
        parts.push(match meta.tab_unfiltered.filter(|n| *n > 0) {
            Some(n) => {
                let none = match (meta.what == "errors", args.filters.is_empty() && args.search.is_none()) {
                    (true, true) => "none of them an error",
                    (true, false) => "none of them an error matching the other filters",
                    (false, _) => "none matching the other filters",
                };
                format!("tabId {tab} has {n} {} entries, {none}", kind.name)
            }
            None => format!(
                "no {} entries for tabId {tab} ({} across all tabs); see observe what=tabs",
                kind.name,
                meta.total_entries_all_tabs.unwrap_or(0)
            ),
        });
    }
    if (meta.filtered_by_tab, meta.count, meta.total) == (None, 0, 0) && args.extras.empty_hint.is_none() {
        parts.push(match (meta.oldest_id, meta.newest_id) {
            (Some(oldest), Some(newest)) => format!(
                "none of the {} entries kept (ids {oldest} to {newest}) matches these arguments; loosen one, or see observe what=summary",
                kind.name
            ),
            _ => format!("no {} entries are stored: none captured yet, or they were cleared", kind.name),
        });
    }
    if meta.truncated && meta.lean && !meta.has_more {
        // The lean paging clause below names the limits; without more to read, this does.
        parts.push(format!("clipped to fit max_tokens={} and max_chars={}", args.max_tokens, args.max_chars));
    }
    if meta.truncated && !meta.lean {
        parts.push(format!(
            "{} shown: answers are capped at max_tokens={} and max_chars={} (drill into one entry with id=N)",
            meta.count, args.max_tokens, args.max_chars
        ));
    }
    if let Some(before) = args.before_cursor {
        if meta.has_older == Some(true) {
            parts.push(format!("older entries remain: continue with before_cursor={}", first_id.unwrap_or(0)));
        } else if meta.count == 0 && meta.total > 0 && meta.oldest_id.is_some_and(|oldest| oldest < before) {
            // Entries before the cursor are kept, but the arguments start after it (a mark's
            // cursor, a page load): what matches is all newer.
            parts.push(format!(
                "no entry before id {before} matches these arguments; the {} that do are newer: continue with after_cursor={}",
                meta.total, meta.cursor
            ));
        } else {
            // Nothing older is kept: say when the ring took it (a page read a moment ago may be
            // gone now), so that the end of what is kept is not read as the start of the capture.
            let gone = meta.oldest_id.filter(|oldest| *oldest > 1).map(|oldest| {
                let lead = if oldest >= before && before > 1 {
                    "nothing before your cursor is kept: the entries"
                } else {
                    "no older entries: those"
                };
                format!("{lead} before id {oldest}, the oldest kept, were trimmed from the ring (capacity reached) or cleared")
            });
            // The oldest kept entry is reached: the way on is forward.
            let forward = (meta.has_more && meta.count > 0)
                .then(|| format!("newer ones follow: continue with after_cursor={}", meta.cursor));
            match (gone, forward) {
                (Some(gone), forward) => {
                    parts.push(gone);
                    parts.extend(forward);
                }
                (None, Some(forward)) => parts.push(format!("no older entries; {forward}")),
                (None, None) => {}
            }
        }
    } else if meta.has_more {
        // Not `offset`: positions move as the ring trims, so paging by offset can skip entries.
        let narrow = if meta.filtered_by_tab.is_some() { "limit or a filter" } else { "tabId, limit or a filter" };
        parts.push(if meta.lean {
            format!(
                "{} of {} shown within max_tokens={} and max_chars={}; continue with after_cursor={}",
                meta.count, meta.total, args.max_tokens, args.max_chars, meta.cursor
            )
        } else {
            format!(
                "{} of {} shown; continue with after_cursor={}, or narrow with {narrow}",
                meta.count, meta.total, meta.cursor
            )
        });
    }
    // The last N, cut by the budget: what is shown is their oldest, and the newest wait after it.
    if let (Some(requested), true, Some(newest)) = (args.offset.filter(|o| *o < 0), meta.has_more, meta.newest_id) {
        parts.push(format!(
            "these are the oldest of the last {}, oldest first; for the newest first, ask before_cursor={}",
            requested.saturating_neg(),
            newest.saturating_add(1)
        ));
    }
    if (meta.count as i64) < meta.total {
        parts.extend(meta.repeats.clone());
    }
    parts.extend(meta.failed_requests.clone());
    (!parts.is_empty()).then(|| parts.join(". "))
}

/// For an errors answer: when the errors matching the arguments repeat a few messages (a render
/// loop, a poll failing every second), a sentence saying how few and how to see each once. Said
/// only when the answer does not show every match: an agent reading a page of one message
/// repeated would otherwise page through copies to find the others.
fn repeats_note(conn: &Connection, filter: &Where, total: i64) -> Result<Option<String>, QueryError> {
    let groups = summary::groups(conn, filter, false)?;
    let most = groups.first().map_or(0, |g| g.count);
    Ok((most > 1).then(|| {
        let distinct = groups.len();
        format!(
            "the {total} matching errors are {distinct} distinct message{}, the most frequent {most} times: observe what=errors group=true lists each once with its count and ids",
            if distinct == 1 { "" } else { "s" }
        )
    }))
}
