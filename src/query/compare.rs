//! `what=compare`: what changed across a mark. With `mark`, the window before it
//! (from the mark or page load before it, or the start) against the window after
//! it (up to now); without, the tab's last two page loads. It answers error groups
//! new, gone and changed in count (the fingerprints of `summary`), console warnings
//! new and gone, requests (by method, URL pattern and GraphQL operation) that newly fail, are fixed or
//! changed status class (`outcome`'s one definition of failed), and the vitals of
//! the page before and after; ids for drill-down throughout. With deep mode on in one window
//! only, what only it sees (the browser's own messages, a worker's console and requests, CORS
//! preflights) is set apart (`only_deep_sees`): the other window could not have seen it.

use std::collections::{BTreeMap, HashMap, HashSet};

use rusqlite::Connection;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::QueryError;
use super::args::ObserveArgs;
use super::compact::utc;
use super::filter::{Where, field_expr};
use super::fingerprint;
use super::marks::{self, Mark};
use super::navigation::{self, Navigation};
use super::outcome::{self, Outcome};
use super::same_request;
use super::summary::{Group, groups, locate};
use crate::kind::{KINDS, Kind, LOGS, NETWORK_BODIES, NETWORK_WATERFALL};

/// One side of a window: after a named mark's ids, or from a page load's time.
#[derive(Debug, Clone)]
enum Bound {
    Mark(Mark),
    Load(Navigation),
}

impl Bound {
    fn json(&self) -> Value {
        match self {
            Bound::Mark(m) => json!({ "mark": m.name, "ts": m.ts, "utc": utc(m.ts) }),
            Bound::Load(l) => {
                let url = l.url.as_deref().map(super::compact::cut);
                json!({ "load": l.id, "how": l.how, "url": url, "tabId": l.tab_id, "ts": l.ts, "utc": utc(l.ts) })
            }
        }
    }
}

/// Entries after `from` (or since the start) up to `to` (or now), of one tab or all.
#[derive(Debug, Clone)]
struct Window {
    from: Option<Bound>,
    to: Option<Bound>,
    tab: Option<i64>,
}

impl Window {
    fn filter(&self, kind: &Kind) -> Where {
        let mut w = Where::default();
        if let Some(tab) = self.tab {
            w.push_param("tab_id = ?", tab.into());
        }
        match &self.from {
            Some(Bound::Mark(m)) => w.push_mark(m.after(kind)),
            Some(Bound::Load(l)) => w.push_page_since(l.ts),
            None => {}
        }
        match &self.to {
            Some(Bound::Mark(m)) => w.push_mark(m.up_to(kind)),
            Some(Bound::Load(l)) => w.push_pages_before(l.ts),
            None => {}
        }
        w
    }

    fn json(&self) -> Value {
        json!({
            "from": self.from.as_ref().map_or_else(|| json!("start"), Bound::json),
            "to": self.to.as_ref().map_or_else(|| json!("now"), Bound::json),
        })
    }
}

/// What one window holds.
struct Side {
    errors: Vec<Group>,
    warnings: Vec<Group>,
    requests: HashMap<RequestKey, Requests>,
    counts: Map<String, Value>,
    /// Whether deep mode was on in the window: it holds a row of the browser's.
    deep: bool,
    /// The error and warning groups every entry of which only deep mode sees ([`DEEP_ONLY_LOG`]).
    deep_only: HashSet<String>,
}

/// A logs entry only deep mode sees: the browser's own console message, or a worker's console.
const DEEP_ONLY_LOG: &str = "(source = 'browser' OR json_extract(data, '$.worker') IS NOT NULL)";

/// A request row only deep mode sees: a worker's own request, or a CORS preflight. A body row is
/// the page's wrappers' in either mode.
fn deep_only_request(kind: &Kind) -> String {
    if kind.name == NETWORK_WATERFALL.name {
        format!(
            "({} IS NOT NULL OR upper(coalesce({}, '')) = 'OPTIONS')",
            field_expr(kind, "fromWorker"),
            field_expr(kind, "method")
        )
    } else {
        "0".into()
    }
}

/// What compare tells requests apart by: the method, the URL pattern, and a GraphQL request's
/// operation (one `POST /graphql` is not the next).
type RequestKey = (String, String, Option<String>);

/// The requests of one [`RequestKey`] in one window.
#[derive(Debug, Clone, Default)]
struct Requests {
    count: i64,
    failed: i64,
    /// The class of the latest one (`outcome::Outcome::class`).
    last_class: &'static str,
    last_id: i64,
    last_kind: &'static str,
    /// An example URL (the latest).
    url: String,
    /// Where the request was seen, when not in the window: [`EARLIER`] or [`SINCE_MARK`].
    from: Option<&'static str>,
    /// Every row of it is one only deep mode sees ([`deep_only_request`]).
    deep_only: bool,
}

/// A side's request seen before its window, the window having none: the latest before the mark
/// (or the load) the window ends at.
const EARLIER: &str = "before the window";
/// The after side's request seen after the mark but before the window, which starts at a page
/// load after the mark and has none.
const SINCE_MARK: &str = "after the mark, before the window";
/// Requests of each kind read at most, newest first, to find one's latest occurrence outside its window.
const OUTSIDE_ROWS: i64 = 10_000;

/// A window's requests of `kind`, each counted once: a body row that has a waterfall row is
/// that row's request ([`same_request`]).
fn requests_filter(window: &Window, kind: &Kind) -> Where {
    let mut filter = window.filter(kind);
    if kind.name == NETWORK_BODIES.name {
        filter.push_condition(&same_request::body_alone_sql());
    }
    filter
}

/// The latest request of each of `wanted` in `window`, read newest
/// first over at most [`OUTSIDE_ROWS`] rows of each request kind, as one occurrence seen `from`.
fn latest_of(
    conn: &Connection,
    window: &Window,
    wanted: &[&RequestKey],
    from: &'static str,
) -> Result<HashMap<RequestKey, Requests>, QueryError> {
    let mut found: HashMap<RequestKey, (i64, Requests)> = HashMap::new();
    if wanted.is_empty() {
        return Ok(HashMap::new());
    }
    for kind in [&NETWORK_WATERFALL, &NETWORK_BODIES] {
        let filter = requests_filter(window, kind);
        let sql = request_select(kind, &filter, &format!("ORDER BY ts DESC, id DESC LIMIT {OUTSIDE_ROWS}"));
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(filter.params.iter()))?;
        let mut left: Vec<&RequestKey> = wanted.to_vec();
        while let Some(row) = rows.next()? {
            let r = RequestRow::read(row)?;
            let Some(at) = left.iter().position(|k| **k == r.key) else { continue };
            left.swap_remove(at);
            let ts = r.ts.unwrap_or(i64::MIN);
            // Unless the other kind's row of it is later.
            if found.get(&r.key).is_none_or(|(seen, _)| *seen < ts) {
                let seen = Requests {
                    count: 1,
                    failed: i64::from(r.outcome.failed()),
                    last_class: r.outcome.class(),
                    last_id: r.id,
                    last_kind: kind.name,
                    url: super::compact::cut(&r.url).into_owned(),
                    from: Some(from),
                    deep_only: r.deep_only,
                };
                found.insert(r.key, (ts, seen));
            }
            if left.is_empty() {
                break;
            }
        }
    }
    Ok(found.into_iter().map(|(k, (_, r))| (k, r)).collect())
}

fn side(conn: &Connection, window: &Window) -> Result<Side, QueryError> {
    let mut errors_filter = window.filter(&LOGS);
    errors_filter.push_condition("level = 'error'");
    let mut warn_filter = window.filter(&LOGS);
    warn_filter.push_condition("level = 'warn'");
    let mut requests: HashMap<RequestKey, Requests> = HashMap::new();
    for kind in [&NETWORK_WATERFALL, &NETWORK_BODIES] {
        read_requests(conn, kind, &requests_filter(window, kind), &mut requests)?;
    }
    let errors = groups(conn, &errors_filter, false)?;
    let warnings = groups(conn, &warn_filter, false)?;
    let deep_only = deep_only_groups(conn, [(&errors_filter, &errors), (&warn_filter, &warnings)])?;
    let mut browser_rows = window.filter(&NETWORK_WATERFALL);
    browser_rows.push_condition(&format!("{} = 'browser'", field_expr(&NETWORK_WATERFALL, "source")));
    let deep = conn
        .prepare_cached(&format!("SELECT EXISTS (SELECT 1 FROM network_waterfall{})", browser_rows.clause(None)))?
        .query_row(rusqlite::params_from_iter(browser_rows.params.iter()), |r| r.get(0))?;
    let mut counts = Map::new();
    for kind in KINDS {
        let filter = window.filter(kind);
        let sql = format!("SELECT count(*) FROM {}{}", kind.name, filter.clause(None));
        let n: i64 =
            conn.prepare_cached(&sql)?.query_row(rusqlite::params_from_iter(filter.params.iter()), |r| r.get(0))?;
        counts.insert(kind.name.into(), json!(n));
    }
    Ok(Side { errors, warnings, requests, counts, deep, deep_only })
}

/// Of each side's groups (its filter, the groups it makes), the fingerprints of those all of whose
/// entries only deep mode sees: the groups read again among those entries, each as many.
fn deep_only_groups(conn: &Connection, sides: [(&Where, &[Group]); 2]) -> Result<HashSet<String>, QueryError> {
    let mut only = HashSet::new();
    for (filter, all) in sides {
        let mut deep = filter.clone();
        deep.push_condition(DEEP_ONLY_LOG);
        let seen: HashMap<String, i64> =
            groups(conn, &deep, false)?.into_iter().map(|g| (g.fingerprint, g.count)).collect();
        if seen.is_empty() {
            continue;
        }
        for g in all {
            if seen.get(&g.fingerprint) == Some(&g.count) {
                only.insert(g.fingerprint.clone());
            }
        }
    }
    Ok(only)
}

/// The query reading `kind`'s request rows under `filter`, followed by `tail` (an order, a limit),
/// in the columns [`RequestRow::read`] reads.
fn request_select(kind: &Kind, filter: &Where, tail: &str) -> String {
    let [status, error, failed_flag] = outcome::outcome_columns(kind);
    format!(
        "SELECT id, ts, url, {status}, {}, {error} IS NOT NULL, {failed_flag}, {}, {} FROM {}{} {tail}",
        field_expr(kind, "method"),
        field_expr(kind, "operation"),
        deep_only_request(kind),
        kind.name,
        filter.clause(None)
    )
}

/// One request row as compare reads it: its request (method, URL pattern, operation) and its outcome.
struct RequestRow {
    id: i64,
    ts: Option<i64>,
    url: String,
    key: RequestKey,
    outcome: Outcome,
    deep_only: bool,
}

impl RequestRow {
    fn read(row: &rusqlite::Row<'_>) -> Result<Self, rusqlite::Error> {
        let url: String = row.get(2)?;
        let method = row.get::<_, Option<String>>(4).ok().flatten().unwrap_or_else(|| "GET".into());
        let outcome = Outcome::new(
            row.get(3).ok().flatten(),
            row.get(5)?,
            row.get::<_, Option<i64>>(6).ok().flatten() == Some(1),
        );
        Ok(Self {
            id: row.get(0)?,
            ts: row.get(1).ok().flatten(),
            key: (method.to_ascii_uppercase(), fingerprint::url_pattern(&url), row.get(7).ok().flatten()),
            url,
            outcome,
            deep_only: row.get::<_, Option<i64>>(8).ok().flatten().unwrap_or(0) != 0,
        })
    }
}

fn read_requests(
    conn: &Connection,
    kind: &'static Kind,
    filter: &Where,
    into: &mut HashMap<RequestKey, Requests>,
) -> Result<(), QueryError> {
    // By time: ids are the order rows arrived in, and a request's row arrives when it ends (a
    // 401 that took longer than the 200 after it arrives after it).
    let sql = request_select(kind, filter, "ORDER BY ts, id");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(filter.params.iter()))?;
    while let Some(row) = rows.next()? {
        let RequestRow { id, url, key, outcome, deep_only, .. } = RequestRow::read(row)?;
        let r = into.entry(key).or_default();
        r.deep_only = deep_only && (r.count == 0 || r.deep_only);
        r.count += 1;
        r.failed += i64::from(outcome.failed());
        // The latest of its kind (rows come in time order); the browser's row (network_waterfall)
        // is preferred for the class: it sees every request.
        if r.last_kind.is_empty() || kind.name == r.last_kind || kind.name == NETWORK_WATERFALL.name {
            r.last_class = outcome.class();
            r.last_id = id;
            r.last_kind = kind.name;
            r.url = super::compact::cut(&url).into_owned();
        }
    }
    Ok(())
}

/// A request seen on one side only is looked for outside the other side's window, so that
/// fixed and newly failing hold when the code path ran earlier: before, the latest occurrence
/// before the mark or load the before window ends at; after, with a page load after the mark,
/// the latest since the mark.
fn outside(
    conn: &Connection,
    plan: &Plan,
    before: &mut HashMap<RequestKey, Requests>,
    after: &mut HashMap<RequestKey, Requests>,
) -> Result<(), QueryError> {
    let wanted: Vec<&RequestKey> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    let earlier = Window { from: None, to: plan.before.to.clone(), tab: plan.tab };
    let found = latest_of(conn, &earlier, &wanted, EARLIER)?;
    before.extend(found);
    if let Some(mark) = &plan.load_after_mark {
        let wanted: Vec<&RequestKey> = before.keys().filter(|k| !after.contains_key(*k)).collect();
        let since_mark = Window { from: Some(Bound::Mark(mark.clone())), to: None, tab: plan.tab };
        let found = latest_of(conn, &since_mark, &wanted, SINCE_MARK)?;
        after.extend(found);
    }
    Ok(())
}

/// The groups of `level` (`error` or `warn`) up to the end of the window before, among the newest
/// [`OUTSIDE_ROWS`] logs entries: where a group new in the window after was seen before.
fn earlier_groups(conn: &Connection, plan: &Plan, level: &str) -> Result<Vec<Group>, QueryError> {
    let earlier = Window { from: None, to: plan.before.to.clone(), tab: plan.tab };
    let mut filter = earlier.filter(&LOGS);
    filter.push_param("level = ?", level.to_owned().into());
    filter.push_condition(&format!("id > (SELECT coalesce(max(id), 0) FROM logs) - {OUTSIDE_ROWS}"));
    groups(conn, &filter, false)
}

/// Which windows to compare, and what to say about them.
struct Plan {
    before: Window,
    after: Window,
    /// Entries of the before window the rings no longer hold, by kind.
    lost_before: BTreeMap<String, i64>,
    /// The page before and after (for vitals): true when a page load falls in the after window.
    reloaded: bool,
    tab: Option<i64>,
    /// With a mark: the mark, when the window after begins at a page load after it rather than at it.
    load_after_mark: Option<Mark>,
}

/// The tab compare takes as the only one seen (neither sent nor tracked), for the answer to say so.
pub fn only_tab(conn: &Connection, args: &ObserveArgs) -> Result<Option<i64>, QueryError> {
    Ok(navigation::asked_tab(conn, args.tab_id)?.and_then(|(tab, only)| only.then_some(tab)))
}

fn plan(conn: &Connection, args: &ObserveArgs) -> Result<Plan, QueryError> {
    let tab = navigation::asked_tab(conn, args.tab_id)?.map(|(tab, _)| tab);
    let Some(name) = &args.mark else {
        let Some(tab) = tab.or(navigation::loaded_last_tab(conn)?) else {
            return Err(QueryError::Invalid(
                "compare without mark compares the last two page loads of a tab: send tabId (observe what=tabs lists them), or set a mark with configure action=mark and send mark".into(),
            ));
        };
        let loads = navigation::loads(conn, tab, i64::MAX, 2)?;
        let [after, before] = loads.as_slice() else {
            return Err(QueryError::Invalid(format!(
                "compare needs two page loads of tab {tab} and found {}: reload the page and compare again, or set a mark with configure action=mark before a change and send mark",
                loads.len()
            )));
        };
        let lost_before = trimmed_since_load(conn, before, marks::lost_between(conn, None, None, &KINDS)?)?;
        return Ok(Plan {
            before: Window {
                from: Some(Bound::Load(before.clone())),
                to: Some(Bound::Load(after.clone())),
                tab: Some(tab),
            },
            after: Window { from: Some(Bound::Load(after.clone())), to: None, tab: Some(tab) },
            lost_before,
            reloaded: true,
            tab: Some(tab),
            load_after_mark: None,
        });
    };
    let mark = marks::get(conn, name)?;
    let previous = marks::previous(conn, &mark)?;
    let actions = &crate::kind::ACTIONS;
    let load_before = match tab {
        // The newest load not after the mark: one that arrived after it may have begun before it.
        Some(t) => {
            match navigation::loads(conn, t, i64::MAX, 8)?.into_iter().find(|l| !mark.is_after(actions, l.id, l.ts)) {
                Some(l) => Some(l),
                None => navigation::loads(conn, t, mark.cursor(actions).unwrap_or(i64::MAX), 1)?.into_iter().next(),
            }
        }
        None => None,
    };
    // The later of the previous mark and the tab's page load before the mark.
    let from = match (previous, load_before) {
        (Some(m), Some(l)) if !m.is_after(actions, l.id, l.ts) => Some(Bound::Mark(m)),
        (_, Some(l)) => Some(Bound::Load(l)),
        (Some(m), None) => Some(Bound::Mark(m)),
        (None, None) => None,
    };
    let lost_before = match &from {
        Some(Bound::Mark(m)) => marks::lost_between(conn, Some(m), Some(&mark), &KINDS)?,
        Some(Bound::Load(l)) => trimmed_since_load(conn, l, marks::lost_between(conn, None, Some(&mark), &KINDS)?)?,
        None => marks::lost_between(conn, None, Some(&mark), &KINDS)?,
    };
    // The tab's latest page load after the mark: what the page did before it (a hot update's
    // warnings, say) is not what the page does now.
    let load_after = match tab {
        Some(t) => navigation::latest(conn, t)?.filter(|l| mark.is_after(actions, l.id, l.ts)),
        None => None,
    };
    // One tab's windows, as the bounds and the vitals are: tabId, else the tracked tab.
    Ok(Plan {
        before: Window { from, to: Some(Bound::Mark(mark.clone())), tab },
        after: Window {
            from: Some(load_after.as_ref().map_or_else(|| Bound::Mark(mark.clone()), |l| Bound::Load(l.clone()))),
            to: None,
            tab,
        },
        lost_before,
        reloaded: load_after.is_some(),
        tab,
        load_after_mark: load_after.map(|_| mark),
    })
}

/// Of `trimmed` (entries each ring trimmed up to the window's end, by kind), the kinds whose
/// ring no longer reaches back to `load`, the window's start: its oldest entry is newer, so
/// what it trimmed may have been in the window. A ring that still holds an entry from before
/// the load lost nothing of the window. The rings keep no time for what they trimmed, so the
/// count is at most what was trimmed before the window's end.
fn trimmed_since_load(
    conn: &Connection,
    load: &Navigation,
    mut trimmed: BTreeMap<String, i64>,
) -> Result<BTreeMap<String, i64>, QueryError> {
    use rusqlite::OptionalExtension;
    for kind in KINDS {
        if !trimmed.contains_key(kind.name) {
            continue;
        }
        let oldest: Option<i64> = conn
            .query_row(&format!("SELECT ts FROM {0} WHERE id = (SELECT min(id) FROM {0})", kind.name), [], |r| r.get(0))
            .optional()?;
        if oldest.is_some_and(|ts| ts <= load.ts) {
            trimmed.remove(kind.name);
        }
    }
    Ok(trimmed)
}

#[derive(Serialize)]
struct GroupOut<'a> {
    fingerprint: &'a str,
    count: i64,
    first_id: i64,
    last_id: i64,
    example: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<&'a str>,
}

fn group_out(g: &Group) -> Value {
    serde_json::to_value(GroupOut {
        fingerprint: &g.fingerprint,
        count: g.count,
        first_id: g.first_id,
        last_id: g.last_id,
        example: &g.example,
        at: g.at.as_deref(),
    })
    .unwrap_or(Value::Null)
}

/// What changed between two sides' groups (errors, or warnings).
struct GroupDiff {
    /// Only in `after`, and never seen before it.
    new: Vec<Value>,
    /// Only in `after` of the two, but seen before the window before (its code ran then, and not
    /// in the window before: a window of no page load), each with `earlier_id`, its latest
    /// occurrence there: not new.
    recurring: Vec<Value>,
    /// Only in `before`.
    gone: Vec<Value>,
    /// In both, with other counts.
    changed: Vec<Value>,
    /// In both, with the same count.
    same: usize,
}

/// Groups only in `after` (new, or recurring where `earlier` holds them: asked for only when some
/// group is only in `after`), only in `before` (gone), and in both with other counts. The first
/// [`TOP`] new and gone groups get their `at`, as the summary's groups say where each happened:
/// only those can be listed.
fn diff_groups(
    conn: &Connection,
    before: &mut [Group],
    after: &mut [Group],
    earlier: impl FnOnce() -> Result<Vec<Group>, QueryError>,
) -> Result<GroupDiff, QueryError> {
    // A group is matched by any of its fingerprints: one Error logged under several messages may
    // be logged under fewer of them in one window.
    let mut in_before: HashMap<&str, usize> = HashMap::new();
    for (i, g) in before.iter().enumerate() {
        for member in &g.members {
            in_before.entry(member.as_str()).or_insert(i);
        }
    }
    let in_after: HashSet<&str> = after.iter().flat_map(|g| g.members.iter().map(String::as_str)).collect();
    let matched: Vec<Option<usize>> =
        after.iter().map(|g| g.members.iter().find_map(|m| in_before.get(m.as_str()).copied())).collect();
    // Read only where some group of the window after is in none of the window before.
    let earlier = if matched.iter().any(Option::is_none) { earlier()? } else { Vec::new() };
    let mut in_earlier: HashMap<&str, i64> = HashMap::new();
    for g in &earlier {
        for member in &g.members {
            let last = in_earlier.entry(member.as_str()).or_insert(g.last_id);
            *last = (*last).max(g.last_id);
        }
    }
    let earlier_id = |g: &Group| g.members.iter().filter_map(|m| in_earlier.get(m.as_str()).copied()).max();
    let (recurring, new): (Vec<usize>, Vec<usize>) =
        (0..after.len()).filter(|&i| matched[i].is_none()).partition(|&i| earlier_id(&after[i]).is_some());
    let gone: Vec<usize> =
        (0..before.len()).filter(|&j| !before[j].members.iter().any(|m| in_after.contains(m.as_str()))).collect();
    for &i in new.iter().chain(&recurring).take(TOP) {
        locate(conn, &mut after[i..=i])?;
    }
    for &j in gone.iter().take(TOP) {
        locate(conn, &mut before[j..=j])?;
    }
    let mut diff = GroupDiff {
        new: new.iter().map(|&i| group_out(&after[i])).collect(),
        recurring: recurring
            .iter()
            .map(|&i| {
                let mut out = group_out(&after[i]);
                out["earlier_id"] = json!(earlier_id(&after[i]));
                out
            })
            .collect(),
        gone: gone.iter().map(|&j| group_out(&before[j])).collect(),
        changed: Vec::new(),
        same: 0,
    };
    for (g, old) in after.iter().zip(&matched) {
        let Some(old) = old.map(|j| &before[j]) else { continue };
        if old.count == g.count {
            diff.same += 1;
        } else {
            diff.changed.push(json!({
                "fingerprint": g.fingerprint, "before": old.count, "after": g.count,
                "last_id": g.last_id, "example": g.example,
            }));
        }
    }
    Ok(diff)
}

fn request_json(key: &RequestKey, before: Option<&Requests>, after: Option<&Requests>) -> Value {
    let side = |r: Option<&Requests>| {
        r.map_or(Value::Null, |r| {
            let mut side = json!({ "class": r.last_class, "count": r.count, "failed": r.failed, "kind": r.last_kind, "id": r.last_id });
            if let Some(from) = r.from {
                side["from"] = json!(from);
            }
            side
        })
    };
    let mut request = json!({ "method": key.0, "pattern": key.1, "before": side(before), "after": side(after) });
    if let Some(operation) = &key.2 {
        request["operation"] = json!(operation);
    }
    request
}

/// Requests that newly fail, that no longer fail, and whose status class changed otherwise; with
/// `unseen_before` (deep mode on after only), a failing request only deep mode sees that the window
/// before has not at all is set apart (the last list): the window before could not have seen it.
fn diff_requests(
    before: &HashMap<RequestKey, Requests>,
    after: &HashMap<RequestKey, Requests>,
    unseen_before: bool,
) -> (Vec<Value>, Vec<Value>, Vec<Value>, Vec<Value>) {
    let mut unseen = Vec::new();
    let mut newly_failing = Vec::new();
    let mut fixed = Vec::new();
    let mut changed = Vec::new();
    let mut keys: Vec<&RequestKey> = after.keys().chain(before.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let (b, a) = (before.get(key), after.get(key));
        let failed_before = b.is_some_and(|r| r.failed > 0);
        let failed_after = a.is_some_and(|r| r.failed > 0);
        match (b, a) {
            (None, Some(ra)) if failed_after && unseen_before && ra.deep_only => {
                let mut item = request_json(key, b, a);
                item["kind"] = json!("request");
                unseen.push(item);
            }
            (_, Some(_)) if failed_after && !failed_before => newly_failing.push(request_json(key, b, a)),
            (Some(_), Some(_)) if failed_before && !failed_after => fixed.push(request_json(key, b, a)),
            (Some(rb), Some(ra)) if rb.last_class != ra.last_class => changed.push(request_json(key, b, a)),
            _ => {}
        }
    }
    let latest = |v: &Value| v["after"]["id"].as_i64().unwrap_or(0);
    newly_failing.sort_by_key(|v| std::cmp::Reverse(latest(v)));
    fixed.sort_by_key(|v| std::cmp::Reverse(latest(v)));
    changed.sort_by_key(|v| std::cmp::Reverse(latest(v)));
    (newly_failing, fixed, changed, unseen)
}

/// Moves the groups of `items` (new or gone in the window with deep mode on) that only deep mode
/// sees into `unseen`, each saying its `kind` ("error" or "warning").
fn set_apart(items: &mut Vec<Value>, deep_only: &HashSet<String>, kind: &str, unseen: &mut Vec<Value>) {
    items.retain(|g| {
        let only = g["fingerprint"].as_str().is_some_and(|f| deep_only.contains(f));
        if only {
            let mut g = g.clone();
            g["kind"] = json!(kind);
            unseen.push(g);
        }
        !only
    });
}

/// The tab's vitals: the page before (the newest earlier page) and the page now.
fn vitals(conn: &Connection, tab: Option<i64>, reloaded: bool) -> Result<Value, QueryError> {
    use rusqlite::OptionalExtension;
    let Some(tab) = tab else { return Ok(Value::Null) };
    let row = conn
        .query_row(
            "SELECT url, lcp, cls, inp, fcp, ttfb, updated_at, json_extract(data, '$.previous') FROM vitals WHERE tab_id = ?1",
            [tab],
            |r| {
                let url = r.get::<_, Option<String>>(0)?.map(|u| super::compact::cut(&u).into_owned());
                let now = json!({
                    "url": url, "lcp": r.get::<_, Option<f64>>(1)?,
                    "cls": r.get::<_, Option<f64>>(2)?, "inp": r.get::<_, Option<f64>>(3)?,
                    "fcp": r.get::<_, Option<f64>>(4)?, "ttfb": r.get::<_, Option<f64>>(5)?,
                });
                let previous: Option<String> = r.get(7)?;
                Ok((now, previous))
            },
        )
        .optional()?;
    let Some((now, previous)) = row else { return Ok(Value::Null) };
    // The tab's pages, newest first: the page now, then the earlier ones.
    let mut pages = vec![now];
    if let Some(Value::Array(earlier)) = previous.and_then(|p| serde_json::from_str::<Value>(&p).ok()) {
        pages.extend(earlier);
    }
    for page in &mut pages {
        if let Some(map) = page.as_object_mut() {
            map.remove("updated_at");
            if let Some(Value::String(url)) = map.get_mut("url") {
                *url = super::compact::cut(url).into_owned();
            }
        }
    }
    // The page after is the newest measured one: the page load the after window began with, not a
    // route change since (htmx's boost, a router's push), which measures nothing of its own; the
    // page before, the newest measured one before that.
    let after = measured_first(&pages, 0);
    let before = after.map(|a| measured_first(&pages, a + 1).unwrap_or(a + 1));
    let page = |i: Option<usize>| i.and_then(|i| pages.get(i)).cloned().unwrap_or(Value::Null);
    if !reloaded {
        return Ok(json!({ "tabId": tab, "before": page(after), "after": page(after),
            "note": "no page load of the tab after the mark: one page spans both windows" }));
    }
    Ok(json!({ "tabId": tab, "before": page(before), "after": page(after) }))
}

/// Of the tab's pages (newest first), from `from` on: the newest with a measure. A route change of
/// a single-page app measures nothing (no LCP, FCP or TTFB of its own), and a page of nulls
/// compares nothing; where none from `from` has one, `from` itself, if there is such a page.
fn measured_first(pages: &[Value], from: usize) -> Option<usize> {
    const METRICS: [&str; 5] = ["lcp", "cls", "inp", "fcp", "ttfb"];
    let measured = |p: &Value| METRICS.iter().any(|m| p.get(*m).is_some_and(|v| !v.is_null()));
    (from < pages.len()).then(|| pages[from..].iter().position(measured).map_or(from, |i| from + i))
}

/// Most items per list; fewer where the budget has no room for them.
const TOP: usize = 10;

pub fn compare(conn: &Connection, args: &ObserveArgs) -> Result<String, QueryError> {
    let plan = plan(conn, args)?;
    let mut before = side(conn, &plan.before)?;
    let mut after = side(conn, &plan.after)?;
    outside(conn, &plan, &mut before.requests, &mut after.requests)?;
    let GroupDiff {
        new: mut errors_new,
        recurring: errors_recurring,
        gone: mut errors_gone,
        changed: errors_changed,
        same: errors_same,
    } = diff_groups(conn, &mut before.errors, &mut after.errors, || earlier_groups(conn, &plan, "error"))?;
    let GroupDiff { new: mut warn_new, recurring: warn_recurring, gone: mut warn_gone, .. } =
        diff_groups(conn, &mut before.warnings, &mut after.warnings, || earlier_groups(conn, &plan, "warn"))?;
    // Deep mode on in one window only: what only it sees is no change, since the other could not.
    let deep_window = match (before.deep, after.deep) {
        (false, true) => Some("after"),
        (true, false) => Some("before"),
        _ => None,
    };
    let (newly_failing, fixed, status_changed, mut unseen) =
        diff_requests(&before.requests, &after.requests, deep_window == Some("after"));
    match deep_window {
        Some("after") => {
            set_apart(&mut errors_new, &after.deep_only, "error", &mut unseen);
            set_apart(&mut warn_new, &after.deep_only, "warning", &mut unseen);
        }
        Some(_) => {
            set_apart(&mut errors_gone, &before.deep_only, "error", &mut unseen);
            set_apart(&mut warn_gone, &before.deep_only, "warning", &mut unseen);
        }
        None => {}
    }
    let vitals = vitals(conn, plan.tab, plan.reloaded)?;
    let evicted_before: i64 = plan.lost_before.values().sum();
    let budget = args.budget();
    let lists = [
        &errors_new,
        &errors_gone,
        &errors_changed,
        &newly_failing,
        &fixed,
        &status_changed,
        &warn_new,
        &warn_gone,
        &unseen,
        &errors_recurring,
        &warn_recurring,
    ];
    let lens: Vec<usize> = lists.iter().map(|l| l.len()).collect();
    let list = |items: &[Value], top: usize| -> Value {
        let mut v = json!({ "count": items.len(), "items": items.iter().take(top).collect::<Vec<_>>() });
        if items.len() > top {
            v["more"] = json!(items.len() - top);
        }
        v
    };
    let fitted = super::compact::filled_lists(&lens, TOP, budget, |tops| {
        let [e_new, e_gone, e_changed, r_failing, r_fixed, r_status, w_new, w_gone, deep_seen, e_again, w_again] = tops
        else {
            unreachable!("one top per list")
        };
        let mut answer = Map::new();
        answer.insert("what".into(), json!("compare"));
        answer.insert("before".into(), with_counts(plan.before.json(), &before.counts));
        answer.insert("after".into(), with_counts(plan.after.json(), &after.counts));
        if evicted_before > 0 {
            answer.insert("evicted_before".into(), json!(plan.lost_before));
        }
        // `recurring` only where there is any: the smallest answer fits the least budget.
        let mut errors = json!({
            "new": list(&errors_new, *e_new),
            "gone": list(&errors_gone, *e_gone),
            "changed": list(&errors_changed, *e_changed),
            "unchanged": errors_same,
        });
        if !errors_recurring.is_empty() {
            errors["recurring"] = list(&errors_recurring, *e_again);
        }
        answer.insert("errors".into(), errors);
        answer.insert(
            "requests".into(),
            json!({
                "newly_failing": list(&newly_failing, *r_failing),
                "fixed": list(&fixed, *r_fixed),
                "status_changed": list(&status_changed, *r_status),
            }),
        );
        let mut warnings = json!({ "new": list(&warn_new, *w_new), "gone": list(&warn_gone, *w_gone) });
        if !warn_recurring.is_empty() {
            warnings["recurring"] = list(&warn_recurring, *w_again);
        }
        answer.insert("warnings".into(), warnings);
        if let Some(window) = deep_window {
            let mut seen = list(&unseen, *deep_seen);
            seen["window"] = json!(window);
            answer.insert("only_deep_sees".into(), seen);
        }
        answer.insert("vitals".into(), vitals.clone());
        let mut hints = Vec::new();
        match plan.tab {
            None => hints.push(
                "every tab's entries: no tabId was sent and no tab is tracked; send tabId (observe what=tabs lists them) to compare one tab's"
                    .to_string(),
            ),
            Some(tab) if empty(&before.counts) && empty(&after.counts) => {
                hints.push(format!("tab {tab} has no entries in either window; see observe what=tabs"));
            }
            Some(_) => {}
        }
        if let (Some(Bound::Load(before)), Some(Bound::Load(after))) = (&plan.before.from, &plan.after.from) {
            let route = |url: &Option<String>| url.as_deref().map(super::navigation::route_of);
            let (was, now) = (route(&before.url), route(&after.url));
            let place = |route: &Option<String>| route.as_deref().map(super::navigation::place_of).map(str::to_owned);
            let urls = (before.url.as_deref().unwrap_or("?"), after.url.as_deref().unwrap_or("?"));
            if place(&was) != place(&now) {
                hints.push(format!(
                    "the two loads are of different pages ({} then {}): what is new or gone may be the other page's, not a change; to compare one page before and after a change, set a mark (configure action=mark), then reload it and send mark",
                    urls.0, urls.1
                ));
            } else if was != now {
                // The same path with another query: a filter, or the page itself where an app keeps
                // its route in the query (Storybook's ?path=/story/…).
                hints.push(format!(
                    "the two loads differ in their query ({} then {}): where the query chooses what the page shows (Storybook's ?path=), what is new or gone may be the other view's, not a change; to compare one view before and after a change, set a mark (configure action=mark), then reload it and send mark",
                    urls.0, urls.1
                ));
            }
        }
        if let (Some(_), Some(Bound::Load(load))) = (&plan.load_after_mark, &plan.after.from) {
            hints.push(format!(
                "the window after begins at the tab's page load after the mark ({} at {}), not at the mark: what the page did between the mark and that load (a hot update's errors, say) is in neither window, but a request seen only there is, marked \"from\"",
                load.how, load.utc
            ));
        }
        if let Some(window) = deep_window {
            let (new_or_gone, other) = if window == "after" { ("new", "before") } else { ("gone", "after") };
            hints.push(format!(
                "deep mode was on in the window {window} only: what only the browser shows (its own console messages, a worker's console and requests, CORS preflights) the window {other} could not see, so those {new_or_gone} in it are listed under only_deep_sees, not as changes"
            ));
        }
        if !errors_recurring.is_empty() || !warn_recurring.is_empty() {
            hints.push(format!(
                "recurring: {} error and {} warning groups of the window after were not in the window before but were seen before it (earlier_id), where the same code ran: not new; the window before did not run it",
                errors_recurring.len(),
                warn_recurring.len()
            ));
        }
        if !errors_gone.is_empty() || !fixed.is_empty() {
            hints.push(
                "gone and fixed mean not seen (failing) in the window after: fixed, or not done again there; repeat the steps that showed them to tell which"
                    .to_string(),
            );
        }
        if evicted_before > 0 {
            hints.push(format!(
                "up to {evicted_before} entries of the earlier window were trimmed from the rings (capacity reached) or cleared: what is gone may have been there"
            ));
        }
        if lens.iter().zip(tops).any(|(len, top)| (*len).min(TOP) > *top) {
            hints.push("lists are shortened to fit max_tokens; each says its count".to_string());
        }
        let read_after =
            if matches!(plan.after.from, Some(Bound::Load(_))) { "since_navigation" } else { "since_mark" };
        hints.push(format!(
            "drill down with observe what=errors id=<last_id> (groups), what=<kind> id=<id> (requests); read the window after with {read_after}"
        ));
        answer.insert("hint".into(), json!(hints.join(". ")));
        Ok::<_, QueryError>(answer)
    })?;
    fitted.map_err(|least| super::compact::too_small("comparison", least, args))
}

/// Whether a window's counts are all zero.
fn empty(counts: &Map<String, Value>) -> bool {
    counts.values().all(|n| n.as_i64().unwrap_or(0) == 0)
}

fn with_counts(mut window: Value, counts: &Map<String, Value>) -> Value {
    window["counts"] = Value::Object(counts.clone());
    window
}
