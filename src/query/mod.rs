//! observe: arguments → indexed SQL → one JSON answer that fits the budget
//! (`max_tokens`, estimated conservatively, and `max_chars`).
//!
//! Reads only; runs inside one read transaction so that totals, ids and the
//! page come from the same snapshot. Pagination is keyset wherever it can be:
//! cursors are `id > ?` / `id < ?`, and offsets on an unfiltered ring with
//! contiguous ids are id arithmetic. Only filtered offsets use SQL `OFFSET`, over
//! the index, from whichever end is nearer.

pub mod args;
pub mod arguments;
mod budget;
pub mod capture;
mod compact;
mod compare;
mod context;
mod count;
mod drill;
pub mod entry;
mod filter;
mod fingerprint;
mod fixed_since;
mod literal;
pub mod marks;
mod navigation;
pub mod outcome;
mod paged;
pub mod rows;
mod same_request;
pub mod search;
mod snapshot;
mod state;
mod summary;
pub mod tokens;
mod values;
mod workers;

use rusqlite::Connection;
use serde_json::Value;

pub use args::{ObserveArgs, What, parse};
pub use budget::Cost;
pub use compact::{at_of, request_at_of};
pub use literal::literals;
pub use snapshot::Snapshot;

use crate::kind::COMMON_FILTERS;
use crate::store::StoreError;

/// Why observe could not answer.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The caller's arguments are wrong; the message says what to send instead.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for QueryError {
    fn from(e: rusqlite::Error) -> Self {
        QueryError::Store(StoreError::Sqlite(e))
    }
}

/// Answers one observe call with the JSON text of the answer.
pub fn observe(conn: &Connection, args: &ObserveArgs) -> Result<String, QueryError> {
    observe_linked(conn, args, None)
}

/// The same, with `viewer` (the viewer's link for this answer, made by the caller) in
/// the metadata as `"viewer"`, its room reserved in the budget like `capture`'s.
pub fn observe_linked(conn: &Connection, args: &ObserveArgs, viewer: Option<&str>) -> Result<String, QueryError> {
    if args.search.is_some() {
        search::ensure(conn)?;
    }
    let snapshot = Snapshot::begin(conn)?;
    let (mut args, navigation, chosen) = scope(conn, args)?;
    let scope_json = navigation.map(|n| serde_json::to_value(&n).unwrap_or(Value::Null));
    // The capture state goes into every answer: its room is reserved first; so does the mark's.
    let note = capture::note(conn, &args)?;
    let since_mark = match &args.since_mark {
        Some(name) => Some(marks::get(conn, name)?),
        None => None,
    };
    let mark_field = match &since_mark {
        Some(mark) => format!(",\"mark\":{}", marks::note(conn, mark, &marks::kinds_of(&args.what))?),
        None => String::new(),
    };
    // The viewer's link is a convenience: left out when it would take more than a quarter of the
    // budget (a long url filter makes a long link).
    let viewer_field = match viewer {
        Some(link) => Some(format!(",\"viewer\":{}", Value::from(link))).filter(|f| args.quarter().admits(Cost::of(f))),
        None => None,
    }
    .unwrap_or_default();
    // A tab chosen as the only one seen, or as the one loaded last, is said as a tracked one is
    // (`tracked_tab_id`).
    let chosen = match (chosen, &args.what) {
        (Some(chosen), _) => Some(chosen),
        (None, What::Compare) => compare::only_tab(conn, &args)?.map(|tab| (tab, navigation::Chosen::Only)),
        (None, _) => None,
    };
    let tab_field = match chosen {
        Some((tab, navigation::Chosen::Only)) => format!(",\"only_tab_id\":{tab}"),
        Some((tab, navigation::Chosen::LoadedLast)) => format!(",\"loaded_last_tab_id\":{tab}"),
        _ => String::new(),
    };
    let fields = format!("{}{mark_field}{tab_field}{viewer_field}", note.field);
    args.extras = args::Extras {
        reserved: note.cost().plus(Cost::of(&mark_field)).plus(Cost::of(&tab_field)).plus(Cost::of(&viewer_field)),
        empty_hint: note.empty_hint.clone(),
        since_mark,
        document_since: args.extras.document_since,
    };
    let answer = match args.what {
        What::Kind { kind, errors_only } if args.group => summary::grouped(conn, kind, errors_only, &args, scope_json)?,
        What::Kind { kind, errors_only } if args.ids.is_some() => drill::answer(conn, kind, errors_only, &args)?,
        What::Kind { kind, errors_only } => paged::answer(conn, kind, errors_only, &args, scope_json)?,
        What::Summary => summary::summary(conn, &args, scope_json)?,
        What::Tabs => state::tabs(conn, &args)?,
        What::Page => state::page(conn, &args, scope_json)?,
        What::Vitals => state::vitals(conn, &args, scope_json)?,
        What::Compare => compare::compare(conn, &args)?,
    };
    snapshot.commit()?;
    Ok(capture::splice(&answer, &fields))
}

/// With `since_navigation`, the arguments narrowed to the tab's entries at or
/// after its latest load or reload, that navigation, and the tab with how it was chosen.
#[allow(clippy::type_complexity)]
fn scope(
    conn: &Connection,
    args: &ObserveArgs,
) -> Result<(ObserveArgs, Option<navigation::Navigation>, Option<(i64, navigation::Chosen)>), QueryError> {
    if !args.since_navigation {
        return Ok((args.clone(), None, None));
    }
    let (tab, chosen) = navigation::tab(conn, args.tab_id)?;
    let mut scoped = args.clone();
    scoped.tab_id = Some(tab);
    let Some(mut nav) = navigation::latest(conn, tab)? else {
        return Err(QueryError::Invalid(format!(
            "no load or reload of tab {tab} is recorded (it may have been trimmed): drop since_navigation to read all of the tab's entries, or reload the page"
        )));
    };
    let since_filter = &COMMON_FILTERS[1];
    let earlier = scoped.filters.iter().position(|f| f.filter.arg == since_filter.arg);
    let since = earlier.and_then(|i| scoped.filters[i].value.as_i64()).unwrap_or(i64::MIN).max(nav.ts);
    if let Some(i) = earlier {
        scoped.filters.remove(i);
    }
    scoped.filters.push(args::FilterValue { filter: since_filter, value: Value::from(since) });
    scoped.extras.document_since = Some(nav.ts);
    // A single-page app's visits since are not loads: the answer says how many, and the latest.
    nav.soft_navigations = navigation::soft_navigations_after(conn, &nav)?;
    Ok((scoped, Some(nav), Some((tab, chosen))))
}

fn internal(e: serde_json::Error) -> QueryError {
    QueryError::Invalid(format!("could not encode the answer: {e}"))
}

/// `head` (a JSON object's text) with `,"<key>":[items]` appended inside it.
fn with_list(head: &str, key: &str, items: &[(i64, String)]) -> String {
    let mut out = String::with_capacity(head.len() + items.iter().map(|(_, e)| e.len() + 1).sum::<usize>() + 16);
    out.push_str(&head[..head.len().saturating_sub(1)]);
    out.push_str(",\"");
    out.push_str(key);
    out.push_str("\":[");
    for (i, (_, e)) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(e);
    }
    out.push_str("]}");
    out
}
