//! The small answers: `tabs`, `page` and `vitals`, under the same budget as
//! every other answer.

use rusqlite::{Connection, OptionalExtension};
use serde_json::{Value, json};

use super::args::ObserveArgs;
use super::budget::{self, Budget, Cost, fit};
use super::{QueryError, with_list};
use crate::store::sql::tracked_tab;

/// Most tabs listed by `what=tabs`.
const TABS_SHOWN: i64 = 100;

fn budget_of(args: &ObserveArgs) -> Budget {
    args.budget()
}

fn tab_json(row: &rusqlite::Row<'_>) -> rusqlite::Result<Value> {
    let mut tab = json!({
        "tabId": row.get::<_, i64>(0)?,
        "url": row.get::<_, Option<String>>(1)?,
        "title": row.get::<_, Option<String>>(2)?,
        "last_seen": row.get::<_, i64>(3)?,
    });
    with_cuts(&mut tab, row.get(4)?);
    Ok(tab)
}

/// `_truncated` (the strings cut at ingest, with their original lengths), as on every entry.
fn with_cuts(value: &mut Value, truncated: Option<String>) {
    if let Some(cuts) = truncated.and_then(|t| serde_json::from_str::<Value>(&t).ok()) {
        value["_truncated"] = cuts;
    }
}

pub fn tabs(conn: &Connection, args: &ObserveArgs) -> Result<String, QueryError> {
    let mut stmt = conn.prepare_cached(
        "SELECT tab_id, url, title, last_seen, truncated FROM tabs WHERE ?1 IS NULL OR tab_id = ?1 \
         ORDER BY last_seen DESC, tab_id LIMIT ?2",
    )?;
    let mut tabs: Vec<Value> =
        stmt.query_map(rusqlite::params![args.tab_id, TABS_SHOWN], tab_json)?.collect::<Result<_, _>>()?;
    if args.tab_id.is_none() {
        // A list: each URL and title cut as compact entries cut text, so that long ones (a
        // 3,000-character route, a title the page made long) leave room for the other tabs;
        // one tab asked for by tabId comes whole.
        for tab in &mut tabs {
            for field in ["url", "title"] {
                // Counted to what the page sent, where ingest cut it (`_truncated`).
                let sent = tab["_truncated"][field].as_u64().map(|n| n as usize);
                let cut = |s: &str| match sent {
                    Some(sent) => super::compact::cut_sent(s, sent).into_owned(),
                    None => super::compact::cut(s).into_owned(),
                };
                if let Some(text) = tab[field].as_str().map(cut) {
                    tab[field] = json!(text);
                }
            }
        }
    }
    // The tabs matching the call: all of them, or the one asked for.
    let total: i64 =
        conn.query_row("SELECT count(*) FROM tabs WHERE ?1 IS NULL OR tab_id = ?1", [args.tab_id], |r| r.get(0))?;
    let mut head = json!({
        "what": "tabs",
        "count": tabs.len(),
        "total": total,
        "tracked_tab_id": tracked_tab(conn)?,
        "truncated": true,
        "hint": "x".repeat(200),
    });
    let reserve = Cost::of(&head.to_string()).plus(Cost::of(",\"tabs\":[]"));
    let texts: Vec<String> = tabs.iter().map(Value::to_string).collect();
    let ids: Vec<i64> = tabs.iter().map(|t| t["tabId"].as_i64().unwrap_or(0)).collect();
    let (kept, cut) = fit(&ids, budget_of(args).minus(reserve), false, |i| Ok::<_, QueryError>(texts[i].clone()))?;
    head["count"] = json!(kept.len());
    head["truncated"] = json!(cut);
    if let (Some(tab), true) = (args.tab_id, kept.is_empty()) {
        head["hint"] = json!(format!("no tab {tab} seen; see observe what=tabs"));
    } else if cut || (total as usize) > kept.len() {
        head["hint"] =
            json!(format!("{} of {total} tabs shown, most recently seen first; ask for one with tabId", kept.len()));
    } else if let Some(map) = head.as_object_mut() {
        map.remove("hint");
    }
    Ok(with_list(&head.to_string(), "tabs", &kept))
}

/// The tab `page` and `vitals` describe: the one asked for, else the tracked tab, else the tab
/// seen most recently (`chosen`: picked among the tabs seen, for the answer to say so).
struct DefaultTab {
    tab: Option<i64>,
    tracked: Option<i64>,
    chosen: bool,
}

fn default_tab(conn: &Connection, tab_id: Option<i64>) -> Result<DefaultTab, QueryError> {
    let tracked = tracked_tab(conn)?;
    if let Some(tab) = tab_id.or(tracked) {
        return Ok(DefaultTab { tab: Some(tab), tracked, chosen: false });
    }
    let tab = conn.query_row("SELECT tab_id FROM tabs ORDER BY last_seen DESC LIMIT 1", [], |r| r.get(0)).optional()?;
    Ok(DefaultTab { tab, tracked, chosen: tab.is_some() })
}

impl DefaultTab {
    /// When the tab was chosen among several (no tabId sent, none tracked): which, and how to ask
    /// for another.
    fn note(&self, conn: &Connection) -> Result<Option<String>, QueryError> {
        let Some(tab) = self.tab.filter(|_| self.chosen) else { return Ok(None) };
        let tabs: i64 = conn.query_row("SELECT count(*) FROM tabs", [], |r| r.get(0))?;
        Ok((tabs > 1).then(|| {
            format!(
                "tab {tab} is the most recently active of {tabs} tabs: send tabId for another (observe what=tabs \
                 lists them), or configure action=track_tab to keep to one"
            )
        }))
    }
}

/// A page's figures as they are read: milliseconds to a tenth, the layout shift score to 4
/// decimals (0.0326, not 0.032552083333333336); the current page's and its earlier pages' alike.
fn round_figures(page: &mut Value) {
    for (key, scale) in [("lcp", 10.0), ("inp", 10.0), ("fcp", 10.0), ("ttfb", 10.0), ("cls", 10_000.0)] {
        if let Some(n) = page.get(key).and_then(Value::as_f64) {
            let rounded = (n * scale).round() / scale;
            page[key] =
                if rounded.fract() == 0.0 && rounded.abs() < 9.0e15 { json!(rounded as i64) } else { json!(rounded) };
        }
    }
}

fn vitals_json(conn: &Connection, tab: i64) -> Result<Option<Value>, QueryError> {
    let row = conn
        .query_row(
            "SELECT tab_id, url, lcp, cls, inp, fcp, ttfb, updated_at, data, truncated FROM vitals WHERE tab_id = ?1",
            [tab],
            |r| {
                let data: String = r.get(8)?;
                let mut v = json!({
                    "tabId": r.get::<_, i64>(0)?,
                    "url": r.get::<_, Option<String>>(1)?,
                    "lcp": r.get::<_, Option<f64>>(2)?,
                    "cls": r.get::<_, Option<f64>>(3)?,
                    "inp": r.get::<_, Option<f64>>(4)?,
                    "fcp": r.get::<_, Option<f64>>(5)?,
                    "ttfb": r.get::<_, Option<f64>>(6)?,
                    "updated_at": r.get::<_, i64>(7)?,
                });
                let mut extra = serde_json::from_str::<Value>(&data).ok().and_then(|e| e.as_object().cloned());
                // The tab's earlier pages (loads and single-page-app routes), newest first.
                let mut previous = extra.as_mut().and_then(|e| e.remove("previous"));
                round_figures(&mut v);
                if let Some(Value::Array(pages)) = previous.as_mut() {
                    pages.iter_mut().for_each(round_figures);
                }
                if let Some(map) = v.as_object_mut() {
                    if let Some(extra) = extra.filter(|e| !e.is_empty()) {
                        map.insert("extra".into(), Value::Object(extra));
                    }
                    if let Some(previous @ Value::Array(_)) = previous {
                        map.insert("previous".into(), previous);
                    }
                }
                with_cuts(&mut v, r.get(9)?);
                Ok(v)
            },
        )
        .optional()?;
    Ok(row)
}

/// `answer` within the budget: its large objects clipped in turn (each keeps
/// its identity fields and says `_clipped`) until it fits.
fn within(mut answer: Value, keys: &[&str], budget: Budget) -> String {
    let text = answer.to_string();
    if budget.admits(Cost::of(&text)) {
        return text;
    }
    let share = Budget { chars: budget.chars / (keys.len() + 1), tokens: budget.tokens / (keys.len() + 1) };
    for key in keys {
        let clipped = match answer.get(*key) {
            Some(v @ Value::Object(_)) => budget::clip(&v.to_string(), share),
            _ => continue,
        };
        answer[*key] = serde_json::from_str(&clipped).unwrap_or(Value::Null);
    }
    answer["truncated"] = json!(true);
    answer.to_string()
}

pub fn page(conn: &Connection, args: &ObserveArgs, navigation: Option<Value>) -> Result<String, QueryError> {
    let asked = default_tab(conn, args.tab_id)?;
    let tab = asked.tab;
    let info = match tab {
        Some(t) => conn
            .query_row("SELECT tab_id, url, title, last_seen, truncated FROM tabs WHERE tab_id = ?1", [t], tab_json)
            .optional()?,
        None => None,
    };
    let vitals = match tab {
        Some(t) => vitals_json(conn, t)?,
        None => None,
    };
    let hint = match (info.is_none(), tab) {
        (true, Some(t)) => Some(format!("no page information for tabId {t} yet; see observe what=tabs")),
        (true, None) => Some("no tab has reported yet: is the extension installed and pointed at this server?".into()),
        (false, _) => asked.note(conn)?,
    };
    let mut answer = json!({
        "what": "page",
        "tabId": tab,
        "tracked_tab_id": asked.tracked,
        "page": info,
        "vitals": vitals,
    });
    if let Some(hint) = hint {
        answer["hint"] = json!(hint);
    }
    if let Some(nav) = navigation {
        answer["navigation"] = nav;
    }
    Ok(within(answer, &["page", "vitals", "navigation"], budget_of(args)))
}

pub fn vitals(conn: &Connection, args: &ObserveArgs, navigation: Option<Value>) -> Result<String, QueryError> {
    let asked = default_tab(conn, args.tab_id)?;
    let vitals = match asked.tab {
        Some(t) => vitals_json(conn, t)?,
        None => None,
    };
    let mut answer = json!({
        "what": "vitals",
        "tabId": asked.tab,
        "tracked_tab_id": asked.tracked,
        "vitals": vitals,
    });
    if let Some(hint) = asked.note(conn)? {
        answer["hint"] = json!(hint);
    }
    if let Some(nav) = navigation {
        answer["navigation"] = nav;
    }
    Ok(within(answer, &["vitals", "navigation"], budget_of(args)))
}
