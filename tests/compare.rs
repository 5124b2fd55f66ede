//! Marks and `what=compare`, black-box: the real server fed a page's life over
//! HTTP as the extension sends it, a real MCP client. A page logs error A, the
//! agent marks "before-fix", the page reloads with A fixed and B introduced:
//! compare says A gone and B new, whether asked across the mark or across the
//! tab's last two page loads.

mod common;

use common::{Mcp, Server, TempDb, entries, ids};
use serde_json::{Value, json};

const T: i64 = 1_790_000_000_000;
const APP: &str = "http://localhost:5173";

fn load(ts: i64, how: &str) -> Value {
    json!({"tabId": 1, "ts": ts, "type": "navigate", "how": how, "url": format!("{APP}/"), "from": Value::Null})
}

fn request(ts: i64, method: &str, path: &str, status: i64) -> Value {
    json!({"tabId": 1, "ts": ts, "url": format!("{APP}{path}"), "method": method, "initiatorType": "fetch",
           "responseStatus": status, "duration": 12.5, "source": "browser", "type": "fetch"})
}

/// Where the page's code logged it (no map there: the raw place is its `at`).
const B_AT: &str = "http://localhost:5173/src/App.jsx?t=1732400000000:12:7";

fn with_location(mut entry: Value) -> Value {
    entry["location"] = json!(B_AT);
    entry
}

fn log(ts: i64, level: &str, message: &str) -> Value {
    json!({"tabId": 1, "ts": ts, "level": level, "source": if level == "error" { "exception" } else { "console" },
           "url": format!("{APP}/"), "message": message,
           "stack": format!("{message}\n    at App (http://localhost:5173/src/App.jsx?t=1732400000000:12:7)")})
}

/// The page before the fix: error A (three times), a deprecation warning, /api/cart failing.
async fn before_fix(server: &Server) {
    server.ingest("actions", vec![load(T, "load")]).await;
    server
        .ingest(
            "logs",
            vec![
                log(T + 10, "error", "TypeError: Cannot read properties of undefined (reading 'price') at item 3"),
                log(T + 11, "error", "TypeError: Cannot read properties of undefined (reading 'price') at item 4"),
                log(T + 12, "warn", "componentWillMount has been renamed"),
                log(T + 13, "error", "TypeError: Cannot read properties of undefined (reading 'price') at item 5"),
                log(T + 14, "error", "Warning: each child in a list should have a unique key"),
            ],
        )
        .await;
    server
        .ingest(
            "network_waterfall",
            vec![
                request(T + 20, "GET", "/api/items/1?expand=price", 200),
                request(T + 21, "GET", "/api/cart", 500),
                request(T + 22, "GET", "/api/user/42", 200),
            ],
        )
        .await;
    let (status, _) = server
        .post("vitals", &json!({"tabId": 1, "url": format!("{APP}/"), "lcp": 2400.0, "cls": 0.12, "ttfb": 80.0}))
        .await;
    assert_eq!(status, 200);
}

/// The page after the reload: A fixed, B introduced, /api/cart fixed, /api/items newly failing.
async fn after_fix(server: &Server) {
    server.ingest("actions", vec![load(T + 10_000, "reload")]).await;
    server
        .ingest(
            "logs",
            vec![
                with_location(log(T + 10_010, "error", "ReferenceError: total is not defined")),
                log(T + 10_011, "error", "Warning: each child in a list should have a unique key"),
                log(T + 10_012, "warn", "slow network detected"),
            ],
        )
        .await;
    server
        .ingest(
            "network_waterfall",
            vec![
                request(T + 10_020, "GET", "/api/items/7?expand=price", 404),
                request(T + 10_021, "GET", "/api/cart", 200),
                request(T + 10_022, "GET", "/api/user/42", 200),
            ],
        )
        .await;
    // A route change before the reload: a page of its own, which measures nothing (no LCP of its own).
    let (status, _) =
        server.post("vitals", &json!({"tabId": 1, "url": format!("{APP}/cart"), "started": T + 9_000})).await;
    assert_eq!(status, 200);
    let (status, _) = server
        .post("vitals", &json!({"tabId": 1, "url": format!("{APP}/?fixed"), "lcp": 1800.0, "cls": 0.02, "ttfb": 75.0}))
        .await;
    assert_eq!(status, 200);
}

fn fingerprints(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .map(|l| l.iter().map(|g| g["fingerprint"].as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

fn assert_a_gone_b_new(c: &Value) {
    let gone = fingerprints(&c["errors"]["gone"]);
    let new = fingerprints(&c["errors"]["new"]);
    assert_eq!(gone.len(), 1, "{c}");
    assert!(gone[0].starts_with("TypeError: Cannot read properties of undefined (reading 'price')"), "{c}");
    assert_eq!(c["errors"]["gone"]["items"][0]["count"], 3, "{c}");
    assert!(
        c["hint"].as_str().is_some_and(|h| h.contains("fixed, or not done again there")),
        "gone is said to be either: {c}"
    );
    assert_eq!(new, vec!["ReferenceError: total is not defined"], "{c}");
    assert_eq!(c["errors"]["new"]["items"][0]["at"], B_AT, "a new error says where it happened: {c}");
    // The key warning happened once on each side: neither new nor gone nor changed.
    assert_eq!(c["errors"]["changed"]["count"], 0, "{c}");
    assert_eq!(c["errors"]["unchanged"], 1, "{c}");
    let newly: Vec<(&str, &str)> = c["requests"]["newly_failing"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["method"].as_str().unwrap(), r["pattern"].as_str().unwrap()))
        .collect();
    assert_eq!(newly, vec![("GET", "http://localhost:5173/api/items/<n>")], "{c}");
    assert_eq!(c["requests"]["newly_failing"]["items"][0]["before"]["class"], "2xx", "{c}");
    assert_eq!(c["requests"]["newly_failing"]["items"][0]["after"]["class"], "4xx", "{c}");
    let fixed = &c["requests"]["fixed"]["items"][0];
    assert_eq!(fixed["pattern"], "http://localhost:5173/api/cart", "{c}");
    assert_eq!((fixed["before"]["class"].as_str(), fixed["after"]["class"].as_str()), (Some("5xx"), Some("2xx")));
    assert_eq!(fingerprints(&c["warnings"]["new"]), vec!["slow network detected"], "{c}");
    assert_eq!(fingerprints(&c["warnings"]["gone"]), vec!["componentWillMount has been renamed"], "{c}");
    // The page before is the last one measured, not the route change between that measured nothing.
    assert_eq!(c["vitals"]["before"]["lcp"], 2400.0, "{c}");
    assert_eq!(c["vitals"]["before"]["url"], format!("{APP}/"), "{c}");
    assert_eq!(c["vitals"]["after"]["lcp"], 1800.0, "{c}");
}

#[tokio::test]
async fn a_reload_that_fixes_a_and_introduces_b() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    before_fix(&server).await;
    let mark = mcp.ok("configure", json!({"action": "mark", "name": "before-fix"})).await;
    assert_eq!(mark["mark"], "before-fix");
    after_fix(&server).await;

    let (across_mark, chars) =
        mcp.ok_sized("observe", json!({"what": "compare", "mark": "before-fix", "tabId": 1})).await;
    assert_a_gone_b_new(&across_mark);
    assert!(chars < 40_000, "fits the default budget");
    assert!(across_mark["before"]["from"]["load"].as_i64().is_some(), "from the page load before the mark");
    // A reload after the mark: the window after begins at it.
    assert_eq!(across_mark["after"]["from"]["how"], "reload", "{across_mark}");

    // Too small a budget: the refusal says what the smallest answer takes, and that is enough.
    let small =
        mcp.err("observe", json!({"what": "compare", "mark": "before-fix", "tabId": 1, "max_chars": 1000})).await;
    let least = |unit: &str| -> usize {
        let at = small.find(&format!(" {unit}")).unwrap_or_else(|| panic!("{small}"));
        small[..at].rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{small}"))
    };
    assert!(small.contains("its smallest form takes about"), "{small}");
    let (tokens, chars) = (least("tokens").max(500), least("characters"));
    assert!(chars > 1000, "{small}");
    let fits = mcp
        .observe(json!({"what": "compare", "mark": "before-fix", "tabId": 1, "max_chars": chars, "max_tokens": tokens}))
        .await;
    assert_eq!(fits["what"], "compare", "{fits}");

    let across_loads = mcp.observe(json!({"what": "compare", "tabId": 1})).await;
    assert_a_gone_b_new(&across_loads);
    assert_eq!(across_loads["after"]["from"]["how"], "reload");
    // A route change after the reload (htmx's boost, a router's push) measures nothing of its own:
    // the vitals still compare the page loads the windows began with, not the route and the reload.
    let (status, _) =
        server.post("vitals", &json!({"tabId": 1, "url": format!("{APP}/todos"), "started": T + 12_000})).await;
    assert_eq!(status, 200);
    let routed = mcp.observe(json!({"what": "compare", "tabId": 1})).await;
    assert_eq!(routed["vitals"]["after"]["url"], format!("{APP}/?fixed"), "{routed}");
    assert_a_gone_b_new(&routed);

    // The ids drill down to the entries.
    let b_id = across_mark["errors"]["new"]["items"][0]["last_id"].as_i64().unwrap();
    let b = mcp.observe(json!({"what": "errors", "id": b_id})).await;
    assert_eq!(entries(&b)[0]["message"], "ReferenceError: total is not defined");
    let req = &across_mark["requests"]["newly_failing"]["items"][0]["after"];
    let r = mcp.observe(json!({"what": req["kind"], "id": req["id"]})).await;
    assert_eq!(entries(&r)[0]["responseStatus"], 404);

    // since_mark reads only what followed the mark, in every kind, and says which mark.
    let since = mcp.observe(json!({"what": "errors", "since_mark": "before-fix"})).await;
    let messages: Vec<&str> =
        since["entries"].as_array().unwrap().iter().map(|e| e["message"].as_str().unwrap()).collect();
    assert_eq!(
        messages,
        ["ReferenceError: total is not defined", "Warning: each child in a list should have a unique key"]
    );
    assert_eq!(since["mark"]["name"], "before-fix");
    let summary = mcp.observe(json!({"what": "summary", "since_mark": "before-fix"})).await;
    assert_eq!(summary["kinds"]["logs"]["count"], 3, "{summary}");
    assert_eq!(summary["kinds"]["network_waterfall"]["count"], 3, "{summary}");
    let with_search =
        mcp.observe(json!({"what": "network_waterfall", "since_mark": "before-fix", "search": "/API/CART"})).await;
    assert_eq!(with_search["total"], 1, "{with_search}");

    // Marks survive a restart (stored in the database).
    mcp.close().await;
    server.stop();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let again = mcp.observe(json!({"what": "compare", "mark": "before-fix", "tabId": 1})).await;
    assert_a_gone_b_new(&again);
    mcp.close().await;
}

#[tokio::test]
async fn unknown_and_evicted_marks_say_so() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let none = mcp.err("observe", json!({"what": "logs", "since_mark": "nope"})).await;
    assert!(none.contains("no mark named \"nope\"") && none.contains("no mark is set yet"), "{none}");
    mcp.ok("configure", json!({"action": "mark", "name": "first"})).await;
    mcp.ok("configure", json!({"action": "capacity", "what": "logs", "capacity": 5})).await;
    server.ingest("logs", common::logs(10, 0, Some(1))).await;
    mcp.ok("configure", json!({"action": "mark", "name": "second"})).await;
    let (first_after, _) = server.ingest("logs", common::logs(10, 10, Some(1))).await;

    let unknown = mcp.err("observe", json!({"what": "compare", "mark": "thrid"})).await;
    assert!(unknown.contains("known marks, newest first: \"second\", \"first\""), "{unknown}");
    let empty_name = mcp.err("configure", json!({"action": "mark"})).await;
    assert!(empty_name.contains("mark needs `name`"), "{empty_name}");
    let spaces = mcp.err("configure", json!({"action": "mark", "name": "   "})).await;
    assert!(spaces.contains("not only spaces"), "{spaces}");
    let number = mcp.err("configure", json!({"action": "mark", "name": 123})).await;
    assert!(number.contains("name must be a string") && number.contains("a number"), "{number}");

    // The ring kept only the last 5 logs: 5 of the 10 after "second" and none before it.
    let since = mcp.observe(json!({"what": "logs", "since_mark": "second"})).await;
    assert_eq!(ids(&since), (first_after + 5..first_after + 10).collect::<Vec<_>>());
    assert_eq!(since["mark"]["evicted_since_mark"]["logs"], 5, "{since}");
    let c = mcp.observe(json!({"what": "compare", "mark": "second"})).await;
    assert_eq!(c["evicted_before"]["logs"], 10, "{c}");
    assert!(c["hint"].as_str().unwrap().contains("up to 10 entries of the earlier window were trimmed"), "{c}");
    assert_eq!(c["before"]["from"]["mark"], "first");
    // No tabId and no tracked tab, but only tab 1 was ever seen: that tab's, and the answer says so
    // (with two tabs, every tab's: tests/observe_agent.rs).
    assert_eq!(c["only_tab_id"], 1, "{c}");
    // A tab never seen: not an all-zero comparison without a word.
    let unseen = mcp.observe(json!({"what": "compare", "mark": "second", "tabId": 99})).await;
    assert!(unseen["hint"].as_str().unwrap().contains("tab 99 has no entries in either window"), "{unseen}");

    // Without a mark, compare needs two loads of a tab.
    let no_loads = mcp.err("observe", json!({"what": "compare", "tabId": 1})).await;
    assert!(no_loads.contains("needs two page loads of tab 1 and found 0"), "{no_loads}");
    mcp.close().await;
}

/// Past the 1,000 marks kept, the oldest is forgotten: asking for it says that may be why.
#[tokio::test]
async fn a_mark_forgotten_for_the_limit_says_so() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    for i in 0..1_001 {
        mcp.ok("configure", json!({"action": "mark", "name": format!("m{i}")})).await;
    }
    let gone = mcp.err("observe", json!({"what": "logs", "since_mark": "m0"})).await;
    assert!(gone.contains("no mark named \"m0\""), "{gone}");
    assert!(gone.contains("only the newest 1000 marks are kept, so an older one may have been forgotten"), "{gone}");
    assert!(gone.contains("and 980 more"), "{gone}");
    let kept = mcp.observe(json!({"what": "logs", "since_mark": "m1"})).await;
    assert_eq!(kept["mark"]["name"], "m1", "{kept}");
    mcp.close().await;
}

/// compare is one tab's: with a tracked tab and no tabId, another tab's errors are not "new"; and
/// a window that starts at a page load still says when the rings trimmed into it.
#[tokio::test]
async fn compare_keeps_to_one_tab_and_says_what_the_rings_trimmed_after_a_load() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    mcp.ok("configure", json!({"action": "capacity", "what": "logs", "capacity": 20})).await;
    server.ingest("actions", vec![load(T, "load")]).await;
    let old: Vec<Value> = (0..10).map(|i| log(T + 10 + i, "error", &format!("old-err {i}"))).collect();
    server.ingest("logs", old).await;
    mcp.ok("configure", json!({"action": "track_tab", "tabId": 1})).await;
    mcp.ok("configure", json!({"action": "mark", "name": "m"})).await;
    let mut other = log(T + 100, "error", "OTHER TAB error");
    other["tabId"] = json!(2);
    server.ingest("logs", vec![other]).await;
    let flood: Vec<Value> = (0..30).map(|i| log(T + 200 + i, "log", &format!("after {i}"))).collect();
    server.ingest("logs", flood).await;

    for args in [json!({"what": "compare", "mark": "m"}), json!({"what": "compare", "mark": "m", "tabId": 1})] {
        let c = mcp.observe(args.clone()).await;
        assert!(!fingerprints(&c["errors"]["new"]).iter().any(|f| f.contains("OTHER TAB")), "{args}: {c}");
        // The window before the mark starts at the page load; the ring (20 logs) no longer reaches
        // back to it, so the ten errors in it may be gone and the answer says so.
        assert!(c["evicted_before"]["logs"].as_i64().is_some_and(|n| n >= 10), "{args}: {c}");
        assert!(c["hint"].as_str().unwrap().contains("trimmed from the rings"), "{args}: {c}");
    }
    // A ring that still holds an entry from before the load lost nothing of the window.
    let db2 = TempDb::new();
    let server2 = Server::start(&db2.path, &[]);
    let mcp2 = Mcp::http(&server2).await;
    mcp2.ok("configure", json!({"action": "capacity", "what": "logs", "capacity": 20})).await;
    // 25 logs before the load, 1 in the window, 3 after the mark: the ring of 20 trimmed 9, all
    // from before the load.
    server2.ingest("logs", (0..25).map(|i| log(T - 100 + i, "log", &format!("early {i}"))).collect()).await;
    server2.ingest("actions", vec![load(T, "load")]).await;
    server2.ingest("logs", vec![log(T + 10, "error", "kept")]).await;
    mcp2.ok("configure", json!({"action": "mark", "name": "m"})).await;
    server2.ingest("logs", (0..3).map(|i| log(T + 200 + i, "log", &format!("after {i}"))).collect()).await;
    let c = mcp2.observe(json!({"what": "compare", "mark": "m", "tabId": 1})).await;
    assert!(c.get("evicted_before").is_none(), "{c}");
    mcp.close().await;
    mcp2.close().await;
}

/// Lists are filled item by item, not to one size for all: a budget too small for the long
/// errors of one list still shows the short requests of another, and a list is shorter than its
/// count only where its next item would not have fitted.
#[tokio::test]
async fn a_list_of_large_items_does_not_starve_the_others() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("actions", vec![load(T, "load")]).await;
    let paths = ["/api/cart", "/api/orders"];
    server.ingest("network_waterfall", paths.iter().map(|p| request(T + 20, "GET", p, 500)).collect()).await;
    server.ingest("actions", vec![load(T + 10_000, "reload")]).await;
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];
    let errors: Vec<Value> = (0..30)
        .map(|i: usize| {
            let long: Vec<&str> = (0..60).map(|k| words[(i * 7 + k * (i % 5 + 1)) % words.len()]).collect();
            log(
                T + 10_010 + i as i64,
                "error",
                &format!("Error {} {} {}", words[i / 10], words[i % 10], long.join(" ")),
            )
        })
        .collect();
    server.ingest("logs", errors).await;
    server.ingest("network_waterfall", paths.iter().map(|p| request(T + 10_020, "GET", p, 200)).collect()).await;
    let mcp = Mcp::http(&server).await;

    // Every list whole (up to 10), to know each item's size.
    let whole = mcp.observe(json!({"what": "compare", "tabId": 1, "max_chars": 400_000, "max_tokens": 100_000})).await;
    let lists = [("errors", "new"), ("requests", "fixed")];
    let item_chars = |list: &(&str, &str), n: usize| -> usize {
        serde_json::to_string(&whole[list.0][list.1]["items"][n]).unwrap().chars().count()
    };
    assert_eq!(whole["requests"]["fixed"]["count"], 2, "{whole}");
    assert!(whole["errors"]["new"]["count"].as_u64() >= Some(20), "{whole}");
    assert!(item_chars(&lists[0], 0) > 2 * item_chars(&lists[1], 0), "an error group is much larger than a request");

    let mut fixed_whole_beside_a_short_error_list = false;
    for max_chars in (2_000..14_000).step_by(250) {
        let c = mcp.observe(json!({"what": "compare", "tabId": 1, "max_chars": max_chars})).await;
        let text = c.to_string();
        assert!(text.chars().count() <= max_chars, "{max_chars}: {text}");
        let shown = |list: &(&str, &str)| c[list.0][list.1]["items"].as_array().map_or(0, Vec::len);
        for list in &lists {
            let count = whole[list.0][list.1]["items"].as_array().unwrap().len();
            let n = shown(list);
            if n < count {
                // Its next item would not have fitted: the answer plus that item (and a comma) is over.
                assert!(
                    text.chars().count() + item_chars(list, n) + 1 > max_chars,
                    "{max_chars}: {}.{} shows {n} of {count} though its next item fits: {text}",
                    list.0,
                    list.1
                );
            }
        }
        if shown(&lists[1]) == 2 && shown(&lists[0]) < 10 {
            fixed_whole_beside_a_short_error_list = true;
        }
    }
    assert!(fixed_whole_beside_a_short_error_list, "some budget shortened the errors and kept both requests");
}

/// Paging back from below a mark's cursor: nothing there matches, and the answer says the way on.
#[tokio::test]
async fn before_cursor_below_a_mark_says_where_the_entries_are() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("logs", common::logs(10, 0, Some(1))).await;
    mcp.ok("configure", json!({"action": "mark", "name": "m"})).await;
    let (first_after, _) = server.ingest("logs", common::logs(10, 10, Some(1))).await;
    let below = mcp.observe(json!({"what": "logs", "since_mark": "m", "before_cursor": first_after - 3})).await;
    assert_eq!((below["count"].as_i64(), below["total"].as_i64()), (Some(0), Some(10)), "{below}");
    let hint = below["hint"].as_str().unwrap_or_default();
    let cursor = below["cursor"].as_i64().unwrap();
    assert!(hint.contains(&format!("the 10 that do are newer: continue with after_cursor={cursor}")), "{below}");
    let on = mcp.observe(json!({"what": "logs", "since_mark": "m", "after_cursor": cursor})).await;
    assert_eq!(ids(&on), (first_after..first_after + 10).collect::<Vec<_>>());
    mcp.close().await;
}

/// The last two loads of a multi-page app are most often two different pages: compare says so,
/// as what is new or gone is then the other page's, not a change. The same page reloaded does not.
#[tokio::test]
async fn compare_of_two_different_pages_says_so() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let nav = |ts: i64, path: &str| json!({"tabId": 1, "ts": ts, "type": "navigate", "how": "load", "url": format!("{APP}{path}")});
    server.ingest("actions", vec![nav(T, "/broken/"), nav(T + 1_000, "/inline/?x=1")]).await;
    server.ingest("logs", vec![log(T + 10, "error", "on broken"), log(T + 1_010, "error", "on inline")]).await;
    let mcp = Mcp::http(&server).await;
    let c = mcp.observe(json!({"what": "compare", "tabId": 1})).await;
    let hint = c["hint"].as_str().unwrap();
    assert!(hint.contains("different pages") && hint.contains(&format!("{APP}/broken/ then {APP}/inline/?x=1")), "{c}");
    // The same page again with another query: not called another page, but said, as the query
    // may be where the app keeps its route (Storybook's ?path=/story/…).
    server.ingest("actions", vec![nav(T + 2_000, "/inline/?x=2")]).await;
    let c = mcp.observe(json!({"what": "compare", "tabId": 1})).await;
    let hint = c["hint"].as_str().unwrap();
    assert!(!hint.contains("different pages") && hint.contains("differ in their query"), "{c}");
    // Reloaded as it was: neither.
    server.ingest("actions", vec![nav(T + 3_000, "/inline/?x=2")]).await;
    let c = mcp.observe(json!({"what": "compare", "tabId": 1})).await;
    let hint = c["hint"].as_str().unwrap();
    assert!(!hint.contains("different pages") && !hint.contains("differ in their query"), "{c}");
    mcp.close().await;
}

/// A refresh loop fixed: before, every call to /api/me failed; after, one expected 401 between
/// two 200s. The latest is the latest by time (a request's row arrives when it ends: the 401 that
/// took longest arrives last), so the status class changed from 4xx to 2xx.
#[tokio::test]
async fn the_latest_request_is_the_latest_in_time_not_the_last_to_arrive() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("actions", vec![load(T, "load")]).await;
    server.ingest("network_waterfall", (0..3).map(|k| request(T + 100 + k, "GET", "/api/me", 401)).collect()).await;
    let mcp = Mcp::http(&server).await;
    mcp.ok("configure", json!({"action": "mark", "name": "before-fix"})).await;
    server.ingest("actions", vec![load(T + 10_000, "reload")]).await;
    let after = [(10_017, 200), (17_767, 200), (17_745, 401)];
    server
        .ingest(
            "network_waterfall",
            after.iter().map(|(dt, status)| request(T + dt, "GET", "/api/me", *status)).collect(),
        )
        .await;
    let c = mcp.observe(json!({"what": "compare", "mark": "before-fix", "tabId": 1})).await;
    let changed = &c["requests"]["status_changed"]["items"];
    assert_eq!(changed.as_array().map(Vec::len), Some(1), "{c}");
    assert_eq!((&changed[0]["before"]["class"], &changed[0]["after"]["class"]), (&json!("4xx"), &json!("2xx")), "{c}");
    assert_eq!((&changed[0]["before"]["failed"], &changed[0]["after"]["failed"]), (&json!(3), &json!(1)), "{c}");
    mcp.close().await;
}

/// What the page before logged as it was left (an SSE stream cut off by the reload) is dated after
/// the reload began; its `docStart` says it is the page before's: unchanged, not new after.
#[tokio::test]
async fn the_last_words_of_the_page_before_are_its_own() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("actions", vec![load(T, "load"), load(T + 1_000, "reload")]).await;
    let mut left = log(T + 1_014, "error", "EventSource error");
    left["docStart"] = json!(T);
    server.ingest("logs", vec![log(T + 500, "error", "EventSource error"), left, log(T + 1_500, "error", "new")]).await;
    let mcp = Mcp::http(&server).await;
    let c = mcp.observe(json!({"what": "compare", "tabId": 1})).await;
    assert_eq!(fingerprints(&c["errors"]["new"]), vec!["new"], "{c}");
    assert_eq!(fingerprints(&c["errors"]["gone"]), vec!["EventSource error"], "{c}");
    mcp.close().await;
}

/// Two different resources failing are two problems: the one fixed is gone and the other new,
/// whether the browser said it (deep mode: the URL in a field of its own, the message the same
/// for both) or the page (the URL in the message; a cache-busting query does not count).
#[tokio::test]
async fn a_fixed_resource_and_a_newly_failing_one_are_not_one_group() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let browser = |ts: i64, path: &str| {
        json!({"tabId": 1, "ts": ts, "level": "error", "source": "browser", "url": format!("{APP}{path}"),
               "message": "Failed to load resource: the server responded with a status of 500 (Internal Server Error)"})
    };
    let page = |ts: i64, path: &str| {
        json!({"tabId": 1, "ts": ts, "level": "error", "source": "resource", "url": format!("{APP}/"),
               "message": format!("Failed to load script: {APP}{path} answered 500")})
    };
    server.ingest("actions", vec![load(T, "load")]).await;
    server.ingest("logs", vec![browser(T + 10, "/api/cart"), page(T + 11, "/src/a.ts?t=1")]).await;
    server.ingest("actions", vec![load(T + 1_000, "reload")]).await;
    server
        .ingest(
            "logs",
            vec![
                browser(T + 1_010, "/api/orders/7"),
                page(T + 1_011, "/src/b.ts?t=2"),
                page(T + 1_012, "/src/b.ts?t=3"),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let c = mcp.observe(json!({"what": "compare", "tabId": 1})).await;
    let mut gone = fingerprints(&c["errors"]["gone"]);
    let mut new = fingerprints(&c["errors"]["new"]);
    gone.sort();
    new.sort();
    assert_eq!(
        gone,
        vec![
            format!(
                "Failed to load resource: the server responded with a status of <n> (Internal Server Error) ({APP}/api/cart)"
            ),
            format!("Failed to load script: {APP}/src/a.ts answered <n>"),
        ],
        "{c}"
    );
    assert_eq!(
        new,
        vec![
            format!(
                "Failed to load resource: the server responded with a status of <n> (Internal Server Error) ({APP}/api/orders/<n>)"
            ),
            format!("Failed to load script: {APP}/src/b.ts answered <n>"),
        ],
        "{c}"
    );
    assert_eq!(c["errors"]["unchanged"], 0, "{c}");
    mcp.close().await;
}

/// The body row of a fetch (network_bodies), as the page's wrapper sends it beside its waterfall row.
fn body(ts: i64, method: &str, path: &str, status: i64) -> Value {
    json!({"tabId": 1, "ts": ts, "url": format!("{APP}{path}"), "method": method, "status": status,
           "duration": 12.0, "initiator": "fetch", "requestBody": "{}", "responseBody": "{}"})
}

/// One POST stored twice (its waterfall row and its body) is one request, not two.
#[tokio::test]
async fn a_request_with_a_waterfall_row_and_a_body_counts_once() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("actions", vec![load(T, "load")]).await;
    server.ingest("network_waterfall", vec![request(T + 5, "GET", "/api/cart", 200)]).await;
    mcp.ok("configure", json!({"action": "mark", "name": "before-fix"})).await;
    server.ingest("network_waterfall", vec![request(T + 100, "POST", "/api/checkout", 422)]).await;
    // The body row of the same request (same start), and one of another request with no row of its own.
    server.ingest("network_bodies", vec![body(T + 100, "POST", "/api/checkout", 422)]).await;
    server.ingest("network_bodies", vec![body(T + 300, "POST", "/api/checkout", 422)]).await;
    let c = mcp.observe(json!({"what": "compare", "mark": "before-fix", "tabId": 1})).await;
    let failing = &c["requests"]["newly_failing"]["items"][0];
    assert_eq!(failing["pattern"], format!("{APP}/api/checkout"), "{c}");
    assert_eq!((failing["after"]["count"].as_i64(), failing["after"]["failed"].as_i64()), (Some(2), Some(2)), "{c}");
    mcp.close().await;
}

/// The code path ran before the window before the mark (an earlier mark starts it): a request's
/// "before" is then its latest occurrence before the mark, and the answer says where it came from.
#[tokio::test]
async fn a_request_fixed_after_the_mark_is_fixed_though_the_window_before_had_none() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("actions", vec![load(T, "load")]).await;
    server.ingest("network_waterfall", vec![request(T + 100, "POST", "/api/checkout", 422)]).await;
    server.ingest("network_waterfall", vec![request(T + 150, "GET", "/api/orders", 200)]).await;
    mcp.ok("configure", json!({"action": "mark", "name": "looked"})).await;
    server.ingest("logs", vec![log(T + 200, "log", "editing")]).await;
    mcp.ok("configure", json!({"action": "mark", "name": "before-fix"})).await;
    // A hot update, no reload; checkout clicked again; orders now fails.
    server.ingest("network_waterfall", vec![request(T + 300, "POST", "/api/checkout", 201)]).await;
    server.ingest("network_waterfall", vec![request(T + 310, "GET", "/api/orders", 500)]).await;
    let c = mcp.observe(json!({"what": "compare", "mark": "before-fix", "tabId": 1})).await;
    assert_eq!(c["before"]["from"]["mark"], "looked", "{c}");
    assert_eq!(c["requests"]["fixed"]["count"], 1, "{c}");
    let fixed = &c["requests"]["fixed"]["items"][0];
    assert_eq!(fixed["pattern"], format!("{APP}/api/checkout"), "{c}");
    assert_eq!(fixed["before"]["class"], "4xx", "{c}");
    assert_eq!(fixed["before"]["from"], "before the window", "{c}");
    assert!(fixed["after"].get("from").is_none(), "{c}");
    let newly = &c["requests"]["newly_failing"]["items"][0];
    assert_eq!(newly["pattern"], format!("{APP}/api/orders"), "{c}");
    assert_eq!(newly["before"]["class"], "2xx", "{c}");
    assert_eq!(newly["before"]["from"], "before the window", "{c}");
    mcp.close().await;
}

/// The review's case: every load of the page rejects (dashboard), and warns; the agent marks
/// twice with no load between, then reloads after the fix. The error and the warning are not in the
/// window before (no load ran the page's code there) but ran before it: recurring, not new; an
/// error never seen before is new.
#[tokio::test]
async fn an_error_seen_before_the_window_before_is_recurring_not_new() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("actions", vec![load(T, "load")]).await;
    server.ingest("logs", vec![log(T + 10, "error", "Error: dashboard: expected at least 3 widgets")]).await;
    server.ingest("logs", vec![log(T + 11, "warn", "[intlify] Not found 'nav.home' key")]).await;
    let first = mcp.observe(json!({"what": "errors", "tabId": 1})).await;
    let first_id = first["entries"][0]["id"].as_i64().expect("the first error's id");
    mcp.ok("configure", json!({"action": "mark", "name": "before-hmr"})).await;
    mcp.ok("configure", json!({"action": "mark", "name": "before-fix"})).await;
    server.ingest("actions", vec![load(T + 1000, "reload")]).await;
    server.ingest("logs", vec![log(T + 1010, "error", "Error: dashboard: expected at least 3 widgets")]).await;
    server.ingest("logs", vec![log(T + 1011, "warn", "[intlify] Not found 'nav.home' key")]).await;
    server.ingest("logs", vec![log(T + 1020, "error", "TypeError: total is not defined")]).await;
    let c = mcp.observe(json!({"what": "compare", "mark": "before-fix", "tabId": 1})).await;
    assert_eq!(fingerprints(&c["errors"]["new"]), ["TypeError: total is not defined"], "{c}");
    let recurring = &c["errors"]["recurring"];
    assert_eq!(recurring["count"], 1, "{c}");
    assert!(recurring["items"][0]["fingerprint"].as_str().unwrap_or_default().starts_with("Error: dashboard"), "{c}");
    assert_eq!(recurring["items"][0]["earlier_id"], first_id, "{c}");
    assert_eq!(c["warnings"]["new"]["count"], 0, "{c}");
    assert_eq!(c["warnings"]["recurring"]["count"], 1, "{c}");
    assert!(c["hint"].as_str().unwrap_or_default().contains("recurring: 1 error and 1 warning groups"), "{c}");
    mcp.close().await;
}

/// A warning logged during a hot update after the mark, gone once the page reloaded: with a page
/// load after the mark, the window after begins at it, and the answer names that load.
#[tokio::test]
async fn with_a_reload_after_the_mark_the_window_after_begins_at_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("actions", vec![load(T, "load")]).await;
    server.ingest("network_waterfall", vec![request(T + 100, "POST", "/api/checkout", 422)]).await;
    mcp.ok("configure", json!({"action": "mark", "name": "before-list-fix"})).await;
    server.ingest("logs", vec![log(T + 200, "error", "Warning: Each child in a list should have a unique key")]).await;
    // Checkout tried once after the edit, before the reload: the latest after the mark.
    server.ingest("network_waterfall", vec![request(T + 250, "POST", "/api/checkout", 201)]).await;
    server.ingest("actions", vec![load(T + 1_000, "reload")]).await;
    server.ingest("logs", vec![log(T + 1_010, "log", "rendered")]).await;
    let c = mcp.observe(json!({"what": "compare", "mark": "before-list-fix", "tabId": 1})).await;
    assert_eq!(c["errors"]["new"]["count"], 0, "{c}");
    assert_eq!(c["after"]["from"]["how"], "reload", "{c}");
    assert!(c["after"]["from"]["load"].as_i64().is_some(), "{c}");
    assert!(c["hint"].as_str().unwrap().contains("page load after the mark"), "{c}");
    // The request tried between the mark and the reload is still the one after.
    let fixed = &c["requests"]["fixed"]["items"][0];
    assert_eq!(fixed["after"]["class"], "2xx", "{c}");
    assert_eq!(fixed["after"]["from"], "after the mark, before the window", "{c}");
    mcp.close().await;
}

/// GraphQL: every operation is a `POST /graphql`. A query refused before the mark (400) is not
/// "fixed" by another operation answered 200 after it; the same operation answered 200 is.
#[tokio::test]
async fn graphql_operations_are_told_apart() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let operation = |ts: i64, name: &str, status: i64| {
        let mut row = request(ts, "POST", "/graphql", status);
        row["operation"] = json!(name);
        row
    };
    server.ingest("actions", vec![load(T, "load")]).await;
    server.ingest("network_waterfall", vec![operation(T + 100, "SearchProducts", 400)]).await;
    server.ingest("network_waterfall", vec![operation(T + 110, "AddToCart", 400)]).await;
    mcp.ok("configure", json!({"action": "mark", "name": "before-fix"})).await;
    server.ingest("network_waterfall", vec![operation(T + 300, "OrderHistory", 200)]).await;
    server.ingest("network_waterfall", vec![operation(T + 310, "AddToCart", 200)]).await;
    let c = mcp.observe(json!({"what": "compare", "mark": "before-fix", "tabId": 1})).await;
    let fixed = c["requests"]["fixed"]["items"].as_array().expect("fixed requests");
    let named: Vec<(&str, &str)> =
        fixed.iter().map(|r| (r["pattern"].as_str().unwrap(), r["operation"].as_str().unwrap())).collect();
    assert_eq!(named, [("http://localhost:5173/graphql", "AddToCart")], "{c}");
    mcp.close().await;
}

/// Deep mode turned on between the two loads: the window after holds what only the browser shows
/// (its own console messages, a worker's console and requests, a CORS preflight), which the page
/// could never see before. Those are set apart under `only_deep_sees`; a request and an error the
/// page would have seen stay changes.
#[tokio::test]
async fn deep_mode_on_after_only_sets_apart_what_only_it_sees() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let page = |ts: i64, path: &str, status: i64| {
        let mut row = request(ts, "GET", path, status);
        row["source"] = json!("page");
        row
    };
    server.ingest("actions", vec![load(T, "load")]).await;
    server.ingest("network_waterfall", vec![page(T + 10, "/api/items", 200)]).await;
    server.ingest("logs", vec![log(T + 20, "log", "rendered")]).await;
    // The person turns deep mode on; the page loads again.
    server.ingest("actions", vec![load(T + 1_000, "reload")]).await;
    let mut worker_request = request(T + 1_010, "GET", "/api/worker-fail", 500);
    worker_request["fromWorker"] = json!(format!("{APP}/worker.js"));
    let mut preflight = request(T + 1_011, "OPTIONS", "/api/upload", 0);
    preflight["error"] = json!("net::ERR_FAILED (CORS: the preflight (OPTIONS) response has status 403)");
    server
        .ingest(
            "network_waterfall",
            vec![
                request(T + 1_005, "GET", "/api/items", 200),
                worker_request,
                preflight,
                request(T + 1_012, "GET", "/api/cart", 500),
            ],
        )
        .await;
    let browser = json!({"tabId": 1, "ts": T + 1_020, "level": "error", "source": "browser", "url": format!("{APP}/api/cart"),
                         "message": "Failed to load resource: the server responded with a status of 500 (Internal Server Error)"});
    let worker = json!({"tabId": 1, "ts": T + 1_021, "level": "warn", "source": "console", "url": format!("{APP}/worker.js"),
                        "worker": "dedicated", "message": "worker: /api/worker-fail answered 500"});
    server.ingest("logs", vec![browser, worker, log(T + 1_022, "error", "ReferenceError: total is not defined")]).await;

    let c = mcp.observe(json!({"what": "compare", "tabId": 1})).await;
    let patterns = |list: &Value| -> Vec<String> {
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["pattern"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(patterns(&c["requests"]["newly_failing"]), [format!("{APP}/api/cart")], "{c}");
    assert_eq!(fingerprints(&c["errors"]["new"]), ["ReferenceError: total is not defined"], "{c}");
    assert_eq!(c["warnings"]["new"]["count"], 0, "{c}");
    let only = &c["only_deep_sees"];
    assert_eq!(only["window"], "after", "{c}");
    let mut seen: Vec<(String, String)> = only["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["kind"].as_str().unwrap().to_string(),
                i["pattern"].as_str().or(i["example"].as_str()).unwrap().to_string(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            (
                "error".to_string(),
                "Failed to load resource: the server responded with a status of 500 (Internal Server Error)"
                    .to_string()
            ),
            ("request".to_string(), format!("{APP}/api/upload")),
            ("request".to_string(), format!("{APP}/api/worker-fail")),
            ("warning".to_string(), "worker: /api/worker-fail answered 500".to_string()),
        ],
        "{c}"
    );
    assert!(c["hint"].as_str().unwrap().contains("deep mode was on in the window after only"), "{c}");
    mcp.close().await;
}

/// Both windows in the same mode: no `only_deep_sees`.
#[tokio::test]
async fn the_same_mode_in_both_windows_sets_nothing_apart() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    before_fix(&server).await;
    after_fix(&server).await;
    let c = mcp.observe(json!({"what": "compare", "tabId": 1})).await;
    assert!(c.get("only_deep_sees").is_none(), "{c}");
    assert!(!c["hint"].as_str().unwrap().contains("deep mode"), "{c}");
    mcp.close().await;
}

/// An agent that marks right after a click: the click's failed request and the page's warning
/// were dated before the mark but reached the server after it (the extension sends in batches, a
/// request's row once it ended). They count before the mark, so the edit after it reads as the fix
/// it is; an entry dated more than a minute before the mark and issued after it counts after.
#[tokio::test]
async fn what_happened_before_the_mark_and_arrived_after_it_counts_before() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    server.ingest("actions", vec![load(now - 5_000, "load")]).await;
    mcp.ok("configure", json!({"action": "mark", "name": "before-fix"})).await;
    server.ingest("network_waterfall", vec![request(now - 300, "POST", "/api/orders", 422)]).await;
    server.ingest("logs", vec![log(now - 290, "warn", "order failed: qty must be at least 1")]).await;
    server
        .ingest("logs", vec![log(now - 120_000, "warn", "a line dated long before, by a page's slept timeline")])
        .await;
    // The fix, then the same request again.
    server.ingest("network_waterfall", vec![request(now + 10_000, "POST", "/api/orders", 201)]).await;
    let c = mcp.observe(json!({"what": "compare", "mark": "before-fix", "tabId": 1})).await;
    assert_eq!(c["requests"]["newly_failing"]["count"], 0, "{c}");
    assert_eq!(c["requests"]["fixed"]["count"], 1, "{c}");
    let fixed = &c["requests"]["fixed"]["items"][0];
    assert_eq!(fixed["before"]["class"], "4xx", "{c}");
    assert!(fixed["before"].get("from").is_none(), "in the window before itself: {c}");
    assert_eq!(fixed["after"]["class"], "2xx", "{c}");
    let new_warnings: Vec<&str> =
        c["warnings"]["new"]["items"].as_array().unwrap().iter().filter_map(|g| g["message"].as_str()).collect();
    assert!(new_warnings.iter().all(|m| !m.contains("qty must be")), "{c}");
    // since_mark reads the same side of the mark.
    let since = mcp.observe(json!({"what": "logs", "since_mark": "before-fix"})).await;
    let listed = entries(&since);
    let messages: Vec<&str> = listed.iter().filter_map(|e| e["message"].as_str()).collect();
    assert_eq!(messages, vec!["a line dated long before, by a page's slept timeline"], "{since}");
    mcp.close().await;
}
