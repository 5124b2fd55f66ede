//! A tab's page loads (hard navigations: a load or reload, not a pushState or
//! hash change): the latest bounds every `what` to "since the last reload"
//! (`since_navigation`), the last two are compare's implicit marks.

use rusqlite::Connection;
use serde::Serialize;

use super::QueryError;
use super::compact::utc;
use crate::store::sql::tracked_tab;

/// A page load: what an answer was bounded by, or one side of a comparison.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Navigation {
    /// Its `actions` entry.
    pub id: i64,
    #[serde(rename = "tabId")]
    pub tab_id: i64,
    pub url: Option<String>,
    pub how: String,
    pub ts: i64,
    pub utc: String,
    /// The page's own route changes since (a single-page app's pushState, replaceState or hash
    /// change), when it made any: set where an answer is bounded by this load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub soft_navigations: Option<SoftNavigations>,
}

/// How many times the page changed its own route since a load, and the latest change: where the
/// tab is now, though no load has happened since (htmx, Turbo, a router).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SoftNavigations {
    pub count: i64,
    pub url: Option<String>,
    pub how: Option<String>,
    pub ts: i64,
}

/// The top frame's route changes of `tab` after the load `nav`, if any: navigations that took the
/// page to another route than the one it was on ([`route_of`]); a router writing the same route back
/// at start-up (SvelteKit's replaceState), a query or an in-page anchor is not one.
pub fn soft_navigations_after(conn: &Connection, nav: &Navigation) -> Result<Option<SoftNavigations>, QueryError> {
    let sql = format!(
        "SELECT ts, url, json_extract(data, '$.how') FROM actions \
         WHERE tab_id = ?1 AND ts >= ?2 AND id <> ?3 AND {TOP_FRAME_NAVIGATION} AND NOT ({PAGE_LOAD}) ORDER BY ts, id"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query([nav.tab_id, nav.ts, nav.id])?;
    let mut routes = Routes::at(nav.url.as_deref());
    let mut route = nav.url.as_deref().map(route_of);
    let mut latest: Option<SoftNavigations> = None;
    while let Some(r) = rows.next()? {
        let url: Option<String> = r.get(1)?;
        let how: Option<String> = r.get(2)?;
        let now = routes.next(url.as_deref(), how.as_deref());
        if now == route {
            continue;
        }
        route = now;
        let count = latest.as_ref().map_or(0, |l| l.count) + 1;
        let url = url.map(|u| super::compact::cut(&u).into_owned());
        latest = Some(SoftNavigations { count, url, how, ts: r.get(0)? });
    }
    Ok(latest)
}

/// The tab an answer is about: `tabId`, else the tracked tab, else the only tab the store holds
/// anything of ([`only_tab`]; `true` beside it then, for the answer to say so). None when none is.
pub fn asked_tab(conn: &Connection, tab_id: Option<i64>) -> Result<Option<(i64, bool)>, QueryError> {
    if let Some(tab) = tab_id.or(tracked_tab(conn)?) {
        return Ok(Some((tab, false)));
    }
    Ok(only_tab(conn)?.map(|tab| (tab, true)))
}

/// How the tab `since_navigation` applies to was found ([`tab`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chosen {
    /// Sent (`tabId`) or tracked.
    Asked,
    /// The only tab the store holds anything of (`only_tab_id`).
    Only,
    /// Of several tabs, none sent or tracked: the one whose page was loaded last (`loaded_last_tab_id`).
    LoadedLast,
}

/// The tab `since_navigation` applies to: [`asked_tab`], else the tab whose page was loaded last
/// ([`loaded_last_tab`]): "since the last reload" with several tabs seen means the page the person
/// loaded last, which the answer names, rather than a refusal. None has a load recorded: refused.
pub fn tab(conn: &Connection, tab_id: Option<i64>) -> Result<(i64, Chosen), QueryError> {
    if let Some((tab, only)) = asked_tab(conn, tab_id)? {
        return Ok((tab, if only { Chosen::Only } else { Chosen::Asked }));
    }
    loaded_last_tab(conn)?.map(|tab| (tab, Chosen::LoadedLast)).ok_or_else(|| {
        QueryError::Invalid(
            "since_navigation needs a tab with a page load: no load or reload of any tab is recorded; send tabId (observe what=tabs lists them), or reload the page".into(),
        )
    })
}

/// The tab of the latest page load stored (the top frame's load or reload), of any tab.
pub fn loaded_last_tab(conn: &Connection) -> Result<Option<i64>, QueryError> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .query_row(
            &format!("SELECT tab_id FROM actions WHERE {PAGE_LOAD} AND tab_id IS NOT NULL ORDER BY id DESC LIMIT 1"),
            [],
            |r| r.get(0),
        )
        .optional()?)
}

/// The one tab the store holds anything of (an entry of any kind, a row of `tabs`), when it
/// holds something of exactly one: with no tab sent or tracked, there is no other it could be.
/// Each table's least and greatest `tab_id`, read from its index.
pub fn only_tab(conn: &Connection) -> Result<Option<i64>, QueryError> {
    let mut seen: Option<i64> = None;
    for table in crate::kind::KINDS.iter().map(|k| k.name).chain(["tabs"]) {
        let (lo, hi): (Option<i64>, Option<i64>) = conn
            .prepare_cached(&format!("SELECT min(tab_id), max(tab_id) FROM {table}"))?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        for tab in [lo, hi].into_iter().flatten() {
            match seen {
                Some(s) if s != tab => return Ok(None),
                _ => seen = Some(tab),
            }
        }
    }
    Ok(seen)
}

/// The latest page load of `tab`, by time.
pub fn latest(conn: &Connection, tab: i64) -> Result<Option<Navigation>, QueryError> {
    Ok(loads(conn, tab, i64::MAX, 1)?.into_iter().next())
}

/// [`TOP_FRAME_NAVIGATION`]'s text, written once for it and for [`PAGE_LOAD`] (`concat!` takes literals only).
macro_rules! top_frame_navigation {
    () => {
        "type = 'navigate' AND coalesce(json_extract(data, '$.frameId'), 0) = 0"
    };
}

/// An `actions` row that is a page load of its tab: a `navigate` by `load`, `reload` or
/// `back_forward` (the browser's back or forward button, a document loaded again or restored from
/// the back-forward cache) of the top frame (a subframe's entries carry its `frameId`, Chrome's 0
/// being the top frame's; an iframe's load is not the page's).
pub const PAGE_LOAD: &str =
    concat!(top_frame_navigation!(), " AND json_extract(data, '$.how') IN ('load', 'reload', 'back_forward')");

/// A `navigate` action of the top frame (a load, a reload, a route change of the page itself).
pub const TOP_FRAME_NAVIGATION: &str = top_frame_navigation!();

/// Top-frame navigations looked back through for the start of a visit.
const VISIT_LOOKBACK: i64 = 200;

/// When the visit of the page the tab was on at `ts` began, if a navigation is recorded: its
/// latest page load, or in a single-page app (htmx, Turbo, a router) the route change that brought
/// it to the route it was on then, whichever is later. Route changes that keep the route (a query
/// written back with replaceState, an in-page anchor) do not start a visit ([`route_of`]).
pub fn visit_began(conn: &Connection, tab: i64, ts: i64) -> Result<Option<i64>, QueryError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT ts, url, ({PAGE_LOAD}), json_extract(data, '$.how') FROM actions WHERE tab_id = ?1 AND ts <= ?2 \
         AND {TOP_FRAME_NAVIGATION} ORDER BY ts DESC, id DESC LIMIT {VISIT_LOOKBACK}"
    ))?;
    let navigations = stmt
        .query_map([tab, ts], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, bool>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    // Each navigation's route, worked out in the order they happened, then read newest first.
    let mut routes = Routes::default();
    let navigations: Vec<(i64, Option<String>, bool)> = {
        let mut forward: Vec<_> = navigations
            .iter()
            .rev()
            .map(|(ts, url, load, how)| (*ts, routes.next(url.as_deref(), how.as_deref()), *load))
            .collect();
        forward.reverse();
        forward
    };
    let Some((first_ts, route, first_load)) = navigations.first() else { return Ok(None) };
    let mut began = *first_ts;
    if !first_load {
        for (ts, now, load) in &navigations[1..] {
            if now != route {
                break;
            }
            began = *ts;
            if *load {
                break;
            }
        }
    }
    Ok(Some(began))
}

/// The route a URL names: its origin, path and query, and a hash route (`#/items`, `#!/items`)
/// with its own query; not an in-page anchor, which a page follows without going anywhere. A query
/// is where some apps keep their route (Storybook's `?path=/story/…`); one a page writes back
/// with replaceState is no route change ([`Routes`]).
pub fn route_of(url: &str) -> String {
    let (before_hash, hash) = url.split_once('#').map_or((url, None), |(b, h)| (b, Some(h)));
    match hash {
        Some(h) if h.starts_with('/') || h.starts_with("!/") => {
            let path = before_hash.split_once('?').map_or(before_hash, |(p, _)| p);
            format!("{path}#{h}")
        }
        _ => before_hash.to_owned(),
    }
}

/// The route's place without any query: what a replaceState that keeps it writes a query back to.
pub fn place_of(route: &str) -> &str {
    let (before_hash, hash) = route.split_once('#').map_or((route, None), |(b, h)| (b, Some(h)));
    match hash {
        Some(h) => &route[..before_hash.len() + 1 + h.split_once('?').map_or(h.len(), |(r, _)| r.len())],
        None => before_hash.split_once('?').map_or(before_hash, |(p, _)| p),
    }
}

/// The routes a tab's navigations took it to, in the order they happened: a replaceState that
/// stays at the same place keeps the route it writes back to (a list's filters, a router's state,
/// SvelteKit and Next writing the URL back at every load), and so does any navigation to the URL
/// the page is at but for an anchor; any other navigation's route is its URL's ([`route_of`]).
#[derive(Default)]
pub struct Routes {
    current: Option<String>,
    /// The route of the URL the page is at (after a query written back, not the route kept).
    at: Option<String>,
}

impl Routes {
    /// Starting at a known route (a page load's URL).
    pub fn at(url: Option<&str>) -> Routes {
        Routes { current: url.map(route_of), at: url.map(route_of) }
    }

    /// The route after a navigation to `url` by `how`.
    pub fn next(&mut self, url: Option<&str>, how: Option<&str>) -> Option<String> {
        let route = url.map(route_of);
        let written_back = how == Some("replaceState")
            && matches!((&self.current, &route), (Some(now), Some(to)) if place_of(now) == place_of(to));
        if !written_back && route != self.at {
            self.current = route.clone();
        }
        self.at = route;
        self.current.clone()
    }
}

/// The tab's page loads ([`PAGE_LOAD`]: what "since the last navigation" and compare's implicit
/// marks mean), newest first, at most `n`, with action ids up to `upto`.
pub fn loads(conn: &Connection, tab: i64, upto: i64, n: i64) -> Result<Vec<Navigation>, QueryError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, ts, url, json_extract(data, '$.how') FROM actions \
         WHERE tab_id = ?1 AND id <= ?2 AND {PAGE_LOAD} ORDER BY ts DESC, id DESC LIMIT ?3"
    ))?;
    let loads = stmt
        .query_map(rusqlite::params![tab, upto, n], |r| {
            let ts: i64 = r.get(1)?;
            // A page's URL may run to the field cap (state in the query): cut, as a list cuts it.
            let url = r.get::<_, Option<String>>(2)?.map(|u| super::compact::cut(&u).into_owned());
            Ok(Navigation { id: r.get(0)?, tab_id: tab, url, how: r.get(3)?, ts, utc: utc(ts), soft_navigations: None })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(loads)
}

#[cfg(test)]
mod tests {
    use super::{Routes, route_of};

    #[test]
    fn a_route_is_origin_path_and_query_and_a_hash_route() {
        assert_eq!(route_of("http://app/settings?tab=2#theme"), "http://app/settings?tab=2");
        assert_eq!(route_of("http://app/settings#theme?x"), "http://app/settings");
        assert_eq!(route_of("http://app/#/items/3?sort=asc"), "http://app/#/items/3?sort=asc");
        assert_eq!(route_of("http://app/?q=1#!/inbox"), "http://app/#!/inbox");
        assert_eq!(route_of("http://app/#!/inbox"), "http://app/#!/inbox");
        assert_eq!(route_of("http://app"), "http://app");
    }

    /// Storybook's manager goes from story to story by pushState of its query; a list writing its
    /// filters back with replaceState stays where it is; a replaceState to another path (a router's
    /// redirect) goes there.
    #[test]
    fn a_query_pushed_is_a_new_route_and_one_written_back_is_not() {
        let mut routes = Routes::at(Some("http://sb/?path=/story/a"));
        let b = routes.next(Some("http://sb/?path=/story/b"), Some("pushState"));
        assert_eq!(b.as_deref(), Some("http://sb/?path=/story/b"));
        let kept = routes.next(Some("http://sb/?path=/story/b&args=x:1"), Some("replaceState"));
        assert_eq!(kept, b, "a query written back");
        let hash = routes.next(Some("http://sb/#/items?sort=asc"), Some("replaceState"));
        assert_eq!(hash.as_deref(), Some("http://sb/#/items?sort=asc"), "another place");
        let kept = routes.next(Some("http://sb/#/items?sort=desc"), Some("replaceState"));
        assert_eq!(kept, hash, "a hash route's query written back");
        let moved = routes.next(Some("http://sb/login"), Some("replaceState"));
        assert_eq!(moved.as_deref(), Some("http://sb/login"), "a redirect");
        let kept = routes.next(Some("http://sb/login?next=%2F"), Some("replaceState"));
        assert_eq!(kept, moved, "a query written back");
        let anchor = routes.next(Some("http://sb/login?next=%2F#form"), Some("pushState"));
        assert_eq!(anchor, moved, "the URL it is at, with an anchor");
    }
}
