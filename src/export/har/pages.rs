//! The pages of a HAR: one per navigation of a tab's top frame (an `actions` entry of type
//! `navigate` without `frameId`), one made up per tab for what came before any navigation seen,
//! and which page an entry belongs to.

use std::collections::HashMap;

use rusqlite::Connection;
use serde_json::{Value, json};
use url::Url;

use super::entries::iso;
use crate::export::Failure;
use crate::kind::ACTIONS;
use crate::query::rows::{self, Filter};

/// A page: a navigation of a tab (an `actions` entry of type `navigate`).
pub(super) struct Page {
    pub(super) id: String,
    pub(super) tab: Option<i64>,
    pub(super) ts: i64,
    pub(super) url: String,
    pub(super) title: String,
    pub(super) on_load: Option<f64>,
    /// Made up for entries of a tab before any navigation seen.
    pub(super) fallback: bool,
}

/// The pages of the export, per tab in time order, and each tab's last known URL.
pub(super) struct Pages {
    pub(super) list: Vec<Page>,
    pub(super) by_tab: HashMap<Option<i64>, Vec<usize>>,
    tab_urls: HashMap<i64, String>,
}

impl Pages {
    pub(super) fn read(conn: &Connection, filter: &Filter) -> Result<Self, Failure> {
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
            // An iframe's navigation (its entries carry frameId; 0 is the top frame) is not a page.
            if v["frameId"].as_i64().is_some_and(|frame| frame != 0) {
                return Ok(());
            }
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
    pub(super) fn of(&mut self, tab: Option<i64>, time: f64) -> Option<usize> {
        if let Some(pages) = self.by_tab.get(&tab) {
            // A navigate action is dated when its navigation began (the document's time origin, to
            // the millisecond below), its document's request at or after it: the page of an entry is
            // the last one begun by then. (A second of slack here filed the document of a page loaded
            // within a second of the one before under that one.)
            let navigated =
                pages.iter().rev().find(|p| !self.list[**p].fallback && self.list[**p].ts as f64 <= time + 1.0);
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
    pub(super) fn absolute(&self, raw: &str, tab: Option<i64>, page: Option<usize>) -> String {
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

pub(super) fn page_json(p: &Page) -> Value {
    json!({
        "startedDateTime": iso(p.ts as f64),
        "id": p.id,
        "title": p.title,
        "pageTimings": { "onContentLoad": -1, "onLoad": p.on_load.unwrap_or(-1.0) },
    })
}
