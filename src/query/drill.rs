//! Drill-down: `id=N` or `ids=[…]` returns those entries whole — every stored
//! field, bodies up to the budget — so that lists can stay compact. With `fields`
//! (names, not `["all"]`), each entry carries those fields, as a page's entries do.

use rusqlite::Connection;
use serde_json::{Map, Value, json};

use super::args::{Fields, ObserveArgs};
use super::budget::{Cost, fit_each};
use super::compact::{Common, Item, Layout};
use super::filter::{Where, select_list};
use super::paged::ErrorContext;
use super::{QueryError, with_list};
use super::{context, entry};
use crate::kind::Kind;
use crate::store::sql::kind_stats;

pub fn answer(
    conn: &Connection,
    kind: &'static Kind,
    errors_only: bool,
    args: &ObserveArgs,
) -> Result<String, QueryError> {
    let ids = args.ids.clone().unwrap_or_default();
    let filter = Where::new(kind, errors_only, args);
    let placeholders = vec!["?"; ids.len()].join(",");
    let sql = format!(
        "SELECT {} FROM {}{} ORDER BY id",
        select_list(kind),
        kind.name,
        filter.clause(Some(&format!("id IN ({placeholders})")))
    );
    let params: Vec<rusqlite::types::Value> = filter.params_with(&ids);
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
    // Named fields: the page's layout of them; else every stored field.
    let layout = match &args.fields {
        Fields::Only(_) => Layout::new(kind, errors_only, &args.fields).map(Layout::giving_stored),
        Fields::Compact | Fields::All => None,
    };
    let mut found: Vec<(i64, Found, Option<i64>, Option<i64>)> = Vec::new();
    while let Some(row) = rows.next()? {
        let entry = match &layout {
            Some(layout) => Found::Item(layout.item(kind, row)?),
            None => Found::Whole(entry::entry_json(kind, row)?),
        };
        found.push((row.get(0)?, entry, row.get(1)?, row.get(2)?));
    }
    let missing: Vec<i64> = ids.iter().copied().filter(|id| !found.iter().any(|f| f.0 == *id)).collect();
    // Of those, the ones stored that the other arguments left out (a search, a level, a tab).
    let filtered_out = stored(conn, kind, &missing)?;
    let not_found: Vec<i64> = missing.into_iter().filter(|id| !filtered_out.contains(id)).collect();
    let stats = kind_stats(conn, kind)?;

    // The hint as it would read with every entry omitted and one clipped: its room is reserved.
    let hints = |omitted: usize, clipped: bool| {
        let mut hints = Vec::new();
        if !not_found.is_empty() {
            let kept = match (stats.oldest_id, stats.newest_id) {
                (Some(o), Some(n)) => format!("{} keeps ids {o} to {n}", kind.name),
                _ => format!("{} is empty", kind.name),
            };
            hints.push(format!(
                "no {} entry with the ids in not_found (trimmed, cleared, or never stored; {kept})",
                args.what.name()
            ));
        }
        if !filtered_out.is_empty() {
            hints.push(format!(
                "the ids in filtered_out are stored but do not match the other arguments (filters, search, \
                 tabId, since{}): ask for them by id alone",
                if errors_only { ", or not errors: ask what=logs" } else { "" }
            ));
        }
        if omitted > 0 {
            hints.push(format!(
                "{omitted} entries did not fit max_tokens={} / max_chars={}: ask for them with fewer ids or a larger max_tokens",
                args.max_tokens, args.max_chars
            ));
        }
        if clipped {
            let more = if args.max_tokens < super::args::MAX_MAX_TOKENS {
                "raise max_tokens for more of it".to_string()
            } else {
                format!(
                    "max_tokens is at its most ({}): ask for one of its fields at a time (fields=[\"responseBody\"]), \
                     or read it whole with gasoline export --jsonl",
                    super::args::MAX_MAX_TOKENS
                )
            };
            hints.push(format!("an entry larger than the whole budget was clipped (\"_clipped\": true); {more}"));
        }
        hints
    };
    let mut head = Map::new();
    head.insert("what".into(), json!(args.what.name()));
    head.insert("count".into(), json!(found.len()));
    head.insert("not_found".into(), json!(not_found));
    if !filtered_out.is_empty() {
        head.insert("filtered_out".into(), json!(filtered_out));
    }
    head.insert("omitted_ids".into(), json!(ids));
    head.insert("oldest_id".into(), json!(stats.oldest_id));
    head.insert("newest_id".into(), json!(stats.newest_id));
    head.insert("truncated".into(), json!(true));
    head.insert("hint".into(), json!(hints(found.len(), true).join(". ")));
    let budget = args.budget();
    let reserve = Cost::of(&Value::Object(head.clone()).to_string()).plus(Cost::of(",\"entries\":[]"));
    let context = errors_only.then(|| ErrorContext { conn, args, shown: context::Shown::every_time() });
    let found_ids: Vec<i64> = found.iter().map(|f| f.0).collect();
    let (entries, cut) = fit_each(&found_ids, budget.minus(reserve), |i| {
        let (id, entry, tab, ts) = &found[i];
        match (entry, &context) {
            (Found::Whole(text), Some(ctx)) => ctx.whole(text, *id, *tab, *ts),
            (Found::Whole(text), None) => Ok(text.clone()),
            (Found::Item(item), ctx) => {
                let mut item = item.clone();
                if let Some(ctx) = ctx {
                    item.fields.push(("context", ctx.json(*id, *tab, *ts)?));
                }
                Ok(item.render(&Common::default()))
            }
        }
    })?;
    let shown: Vec<i64> = entries.iter().map(|(id, _)| *id).collect();
    let omitted: Vec<i64> = found_ids.iter().copied().filter(|id| !shown.contains(id)).collect();
    let clipped = entries.iter().any(|(_, t)| super::entry::is_clipped(t));
    head.insert("count".into(), json!(entries.len()));
    head.insert("omitted_ids".into(), json!(omitted));
    head.insert("truncated".into(), json!(cut));
    let hints = hints(omitted.len(), clipped);
    if hints.is_empty() {
        head.remove("hint");
    } else {
        head.insert("hint".into(), json!(hints.join(". ")));
    }
    Ok(with_list(&Value::Object(head).to_string(), "entries", &entries))
}

/// An entry found: whole, or the fields asked for.
enum Found {
    Whole(String),
    Item(Item),
}

/// Which of `ids` are stored in `kind`'s table, whatever the filters.
fn stored(conn: &Connection, kind: &Kind, ids: &[i64]) -> Result<Vec<i64>, QueryError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders = vec!["?"; ids.len()].join(",");
    let mut stmt =
        conn.prepare_cached(&format!("SELECT id FROM {} WHERE id IN ({placeholders}) ORDER BY id", kind.name))?;
    let rows = stmt.query_map(rusqlite::params_from_iter(ids.iter()), |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
