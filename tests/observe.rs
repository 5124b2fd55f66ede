//! The MCP `observe` and `configure` tools, black-box: a real rmcp client
//! against the real binary, over stdio and over streamable HTTP.

mod common;

use common::{Mcp, Server, TempDb, entries, ids, logs};
use serde_json::{Value, json};

fn waterfall(n: usize, tab: impl Fn(usize) -> i64) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({"tabId": tab(i), "url": format!("http://app/r{i}.js"), "initiatorType": "script",
                        "responseStatus": if i % 10 == 0 { 404 } else { 200 }, "duration": i as f64})
        })
        .collect()
}

/// The product spec's edge cases and their metadata, on one transport.
async fn spec_edge_cases(mcp: &Mcp, first_id: i64) {
    let all = mcp.observe(json!({"what": "network_waterfall", "max_tokens": 100_000, "max_chars": 500_000})).await;
    assert_eq!((all["count"].as_i64(), all["total"].as_i64()), (Some(500), Some(500)));
    assert_eq!(ids(&all), (first_id..first_id + 500).collect::<Vec<_>>(), "oldest first, all of them");
    assert_eq!(all["has_more"], false);
    assert_eq!(all["next_offset"], Value::Null);
    assert_eq!(all["cursor"], first_id + 499);
    assert_eq!(all["oldest_id"], first_id);
    assert_eq!(all["newest_id"], first_id + 499);
    assert_eq!(all["tracked_tab_id"], Value::Null);

    let zero = mcp
        .observe(json!({"what": "network_waterfall", "limit": 0, "max_tokens": 100_000, "max_chars": 500_000}))
        .await;
    assert_eq!(ids(&zero), ids(&all), "limit 0 = all");

    let p0 = mcp.observe(json!({"what": "network_waterfall", "offset": 0, "limit": 10})).await;
    assert_eq!(ids(&p0), (first_id..first_id + 10).collect::<Vec<_>>());
    assert_eq!(
        (p0["count"].as_i64(), p0["total"].as_i64(), p0["offset"].as_i64(), p0["limit"].as_i64()),
        (Some(10), Some(500), Some(0), Some(10))
    );
    assert_eq!((p0["has_more"].as_bool(), p0["next_offset"].as_i64()), (Some(true), Some(10)));
    assert_eq!(p0["cursor"], first_id + 9);
    assert!(p0["hint"].as_str().unwrap().contains(&format!("after_cursor={}", first_id + 9)), "{}", p0["hint"]);

    let p1 = mcp.observe(json!({"what": "network_waterfall", "offset": 10, "limit": 10})).await;
    assert_eq!(ids(&p1), (first_id + 10..first_id + 20).collect::<Vec<_>>());
    assert_eq!((p1["offset"].as_i64(), p1["next_offset"].as_i64()), (Some(10), Some(20)));

    let beyond = mcp.observe(json!({"what": "network_waterfall", "offset": 1000, "limit": 100})).await;
    assert_eq!(beyond["entries"], json!([]));
    assert_eq!(
        (beyond["count"].as_i64(), beyond["total"].as_i64(), beyond["offset"].as_i64(), beyond["limit"].as_i64()),
        (Some(0), Some(500), Some(1000), Some(100))
    );
    assert_eq!((beyond["has_more"].as_bool(), beyond["next_offset"].as_i64()), (Some(false), None));

    let last10 = mcp.observe(json!({"what": "network_waterfall", "offset": -10})).await;
    assert_eq!(ids(&last10), (first_id + 490..first_id + 500).collect::<Vec<_>>());
    assert_eq!(
        (last10["offset"].as_i64(), last10["limit"].as_i64(), last10["has_more"].as_bool()),
        (Some(490), Some(10), Some(false))
    );

    let last50_first5 = mcp.observe(json!({"what": "network_waterfall", "offset": -50, "limit": 5})).await;
    assert_eq!(ids(&last50_first5), (first_id + 450..first_id + 455).collect::<Vec<_>>());
    assert_eq!(last50_first5["next_offset"], 455);

    let more_than_all = mcp
        .observe(json!({"what": "network_waterfall", "offset": -10_000, "max_tokens": 100_000, "max_chars": 500_000}))
        .await;
    assert_eq!((more_than_all["count"].as_i64(), more_than_all["offset"].as_i64()), (Some(500), Some(0)));

    // Every entry carries its id and tabId, in every mode.
    for answer in [&all, &p0, &p1, &last10] {
        for e in answer["entries"].as_array().unwrap() {
            assert!(e["id"].is_i64() && e.get("tabId").is_some(), "{e}");
            assert_eq!(e["tabId"].as_i64(), Some((e["id"].as_i64().unwrap() - first_id) % 3 + 1));
        }
    }
    // Compact entries name the usual fields; fields=["all"] gives them as stored.
    let entry = &entries(&all)[1];
    assert_eq!(entry["url"], "http://app/r1.js");
    assert_eq!(entry["type"], "script");
    assert_eq!(entry["status"], 200);
    assert_eq!(entry["duration"], 1);
    let stored = mcp.observe(json!({"what": "network_waterfall", "offset": 1, "limit": 1, "fields": ["all"]})).await;
    let entry = &stored["entries"][0];
    assert_eq!(entry["initiatorType"], "script");
    assert_eq!(entry["responseStatus"], 200);
    assert_eq!(entry["duration"], 1.0);
}

#[tokio::test]
async fn spec_edge_cases_over_stdio_and_streamable_http() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let (first_id, _) = server.ingest("network_waterfall", waterfall(500, |i| (i % 3) as i64 + 1)).await;
    let http = Mcp::http(&server).await;
    spec_edge_cases(&http, first_id).await;
    http.close().await;
    // stdio: the port is held by `serve`, so `mcp` reads the same database file.
    let stdio = Mcp::stdio(&db.path, server.port).await;
    spec_edge_cases(&stdio, first_id).await;
    stdio.close().await;
}

#[tokio::test]
async fn tab_filter_and_tracked_tab() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", (0..30).flat_map(|i| logs(1, i, Some(if i % 3 == 0 { 7 } else { 8 }))).collect()).await;
    server.ingest("logs", logs(2, 30, None)).await;
    let mcp = Mcp::http(&server).await;

    let tab7 = mcp.observe(json!({"what": "logs", "tabId": 7})).await;
    assert_eq!(tab7["count"], 10);
    assert_eq!(tab7["total"], 10);
    assert_eq!(tab7["filtered_by_tab"], 7);
    assert_eq!(tab7["total_entries_all_tabs"], 32);
    assert!(entries(&tab7).iter().all(|e| e["tabId"] == 7));
    let page = mcp.observe(json!({"what": "logs", "tabId": 8, "offset": 5, "limit": 5})).await;
    assert_eq!(page["count"], 5);
    assert_eq!(page["total"], 20);
    assert_eq!(page["next_offset"], 10);
    let tail = mcp.observe(json!({"what": "logs", "tabId": 8, "offset": -3})).await;
    assert_eq!(ids(&tail), vec![27, 29, 30], "last 3 of tab 8 (messages 26, 28, 29)");

    let none = mcp.observe(json!({"what": "logs", "tabId": 99})).await;
    assert_eq!(none["entries"], json!([]));
    assert_eq!((none["count"].as_i64(), none["total"].as_i64()), (Some(0), Some(0)));
    assert_eq!((none["filtered_by_tab"].as_i64(), none["total_entries_all_tabs"].as_i64()), (Some(99), Some(32)));
    assert!(none["hint"].as_str().unwrap().contains("no logs entries for tabId 99"), "{}", none["hint"]);
    // A tab whose entries the other filters leave out is not said to have none.
    let filtered = mcp.observe(json!({"what": "logs", "tabId": 7, "search": "no such text"})).await;
    assert_eq!((filtered["count"].as_i64(), filtered["total"].as_i64()), (Some(0), Some(0)));
    let hint = filtered["hint"].as_str().unwrap();
    assert!(hint.contains("tabId 7 has 10 logs entries, none matching the other filters"), "{hint}");
    assert!(!hint.contains("no logs entries for tabId"), "{hint}");
    // Nothing matching, no tab named: the answer says so, and whether anything is stored at all.
    let nothing = mcp.observe(json!({"what": "logs", "search": "no such text"})).await;
    let hint = nothing["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("none of the logs entries kept (ids 1 to 32) matches these arguments"), "{hint}");
    let empty = mcp.observe(json!({"what": "websocket_events"})).await;
    let hint = empty["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("no websocket_events entries are stored"), "{hint}");
    // what=errors of a tab whose entries are no errors: not "no entries" either.
    let errors = mcp.observe(json!({"what": "errors", "tabId": 7})).await;
    let hint = errors["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("tabId 7 has 10 logs entries, none of them an error"), "{hint}");
    let errors = mcp.observe(json!({"what": "errors", "tabId": 7, "search": "m3"})).await;
    let hint = errors["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("tabId 7 has 10 logs entries, none of them an error matching the other filters"), "{hint}");
    // With the tab given, the way on does not suggest narrowing by tab.
    let paged = mcp.observe(json!({"what": "logs", "tabId": 8, "limit": 5})).await;
    let hint = paged["hint"].as_str().unwrap();
    assert!(hint.contains("continue with after_cursor") && !hint.contains("tabId"), "{hint}");

    // Entries without a tab say so with null.
    let untabbed = mcp.observe(json!({"what": "logs", "offset": -2})).await;
    assert!(entries(&untabbed).iter().all(|e| e["tabId"].is_null()));

    let tracked = mcp.ok("configure", json!({"action": "track_tab", "tabId": 7})).await;
    assert_eq!(tracked["tracked_tab_id"], 7);
    for what in ["logs", "errors", "network_bodies", "actions"] {
        assert_eq!(mcp.observe(json!({"what": what, "limit": 1})).await["tracked_tab_id"], 7, "{what}");
    }
    mcp.ok("configure", json!({"action": "track_tab", "tabId": null})).await;
    assert_eq!(mcp.observe(json!({"what": "logs", "limit": 1})).await["tracked_tab_id"], Value::Null);
}

#[tokio::test]
async fn cursors_page_forward_and_backward_exactly_once() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(250, 0, Some(1))).await;
    let mcp = Mcp::http(&server).await;

    let mut seen = Vec::new();
    let mut cursor = 0;
    loop {
        let page = mcp.observe(json!({"what": "logs", "after_cursor": cursor, "limit": 40})).await;
        seen.extend(ids(&page));
        assert_eq!(page["offset"].as_i64().unwrap() + page["count"].as_i64().unwrap(), seen.len() as i64);
        cursor = page["cursor"].as_i64().unwrap();
        if !page["has_more"].as_bool().unwrap() {
            break;
        }
    }
    assert_eq!(seen, (1..=250).collect::<Vec<_>>());
    // Nothing new: polling from the cursor is empty and keeps the cursor.
    let idle = mcp.observe(json!({"what": "logs", "after_cursor": cursor})).await;
    assert_eq!(
        (idle["count"].as_i64(), idle["cursor"].as_i64(), idle["has_more"].as_bool()),
        (Some(0), Some(250), Some(false))
    );
    // Default page size of a cursor read is 100.
    assert_eq!(mcp.observe(json!({"what": "logs", "after_cursor": 0})).await["count"], 100);

    let mut back = Vec::new();
    let mut before = 251;
    loop {
        let page = mcp.observe(json!({"what": "logs", "before_cursor": before, "limit": 60})).await;
        let page_ids = ids(&page);
        assert!(page_ids.windows(2).all(|w| w[0] < w[1]), "still oldest first");
        back.splice(0..0, page_ids);
        before = page["prev_cursor"].as_i64().unwrap();
        if !page["has_older"].as_bool().unwrap() {
            // The oldest is reached: the hint says the way on is forward, from this page's cursor.
            let hint = page["hint"].as_str().unwrap_or_default();
            let forward = format!("continue with after_cursor={}", page["cursor"]);
            assert!(hint.contains("no older entries") && hint.contains(&forward), "{page}");
            break;
        }
    }
    assert_eq!(back, (1..=250).collect::<Vec<_>>());
}

#[tokio::test]
async fn eviction_reports_exactly_what_was_lost() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--capacity", "websocket_events=50"]);
    let ws =
        |i: usize| json!({"connectionId": "c1", "event": "message", "direction": "incoming", "data": format!("d{i}")});
    server.ingest("websocket_events", (0..20).map(ws).collect()).await;
    let mcp = Mcp::http(&server).await;
    let first = mcp.observe(json!({"what": "websocket_events", "limit": 10})).await;
    let cursor = first["cursor"].as_i64().unwrap();
    assert_eq!(cursor, 10);
    assert_eq!(first.get("evicted_since_cursor"), None);
    server.ingest("websocket_events", (20..200).map(ws).collect()).await;
    let next = mcp.observe(json!({"what": "websocket_events", "after_cursor": cursor, "limit": 5})).await;
    assert_eq!(next["evicted_since_cursor"], 140, "ids 11..=150 were trimmed");
    assert_eq!(ids(&next), vec![151, 152, 153, 154, 155]);
    assert!(next["hint"].as_str().unwrap().contains("140 entries after your cursor were trimmed"));
    // The check is against the whole table, not the filtered rows.
    let filtered =
        mcp.observe(json!({"what": "websocket_events", "after_cursor": cursor, "direction": "outgoing"})).await;
    assert_eq!((filtered["evicted_since_cursor"].as_i64(), filtered["count"].as_i64()), (Some(140), Some(0)));
    let fresh = mcp.observe(json!({"what": "websocket_events", "after_cursor": 160, "limit": 1})).await;
    assert_eq!(fresh["evicted_since_cursor"], 0);
}

#[tokio::test]
async fn budget_caps_every_answer_and_following_it_yields_each_entry_once() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    // Bodies from 1 KB to 60 KB: some answers hold many, some one clipped entry.
    let bodies: Vec<Value> = (0..40)
        .map(|i| json!({"tabId": 1, "method": "POST", "url": format!("http://api/{i}"), "status": 200,
                        "requestBody": "q".repeat(1000 + (i * 1531) % 60_000), "responseBody": "r".repeat((i * 977) % 60_000)}))
        .collect();
    server.ingest("network_bodies", bodies).await;
    let mcp = Mcp::http(&server).await;

    for max_chars in [5_000usize, 30_000, 100_000] {
        // Following the cursor.
        let (mut seen, mut cursor) = (Vec::new(), 0);
        for _ in 0..200 {
            let (page, size) = mcp
                .ok_sized(
                    "observe",
                    json!({"what": "network_bodies", "after_cursor": cursor, "limit": 0, "max_chars": max_chars, "max_tokens": 100_000, "fields": ["all"]}),
                )
                .await;
            assert!(size <= max_chars, "answer of {size} chars > max_chars {max_chars}");
            seen.extend(ids(&page));
            cursor = page["cursor"].as_i64().unwrap();
            if page["truncated"] == true {
                // Entries left out, or the last one clipped (then nothing more may remain).
                let last_clipped =
                    page["entries"].as_array().and_then(|e| e.last()).is_some_and(|e| e["_clipped"] == true);
                assert!(page["has_more"] == true || last_clipped, "{page}");
                assert!(page["hint"].as_str().unwrap().contains("max_chars"), "{}", page["hint"]);
            }
            if page["has_more"] == false {
                break;
            }
        }
        assert_eq!(seen, (1..=40).collect::<Vec<_>>(), "cursor, max_chars {max_chars}");
        // Following next_offset.
        let (mut seen, mut offset) = (Vec::new(), 0);
        for _ in 0..200 {
            let (page, size) = mcp
                .ok_sized(
                    "observe",
                    json!({"what": "network_bodies", "offset": offset, "max_chars": max_chars, "max_tokens": 100_000, "fields": ["all"]}),
                )
                .await;
            assert!(size <= max_chars, "answer of {size} chars > max_chars {max_chars}");
            seen.extend(ids(&page));
            match page["next_offset"].as_i64() {
                Some(next) => offset = next,
                None => break,
            }
        }
        assert_eq!(seen, (1..=40).collect::<Vec<_>>(), "offset, max_chars {max_chars}");
    }
    // The default budget applies when none is given: compact entries (no bodies) all fit,
    // whole ones do not.
    let (page, size) = mcp.ok_sized("observe", json!({"what": "network_bodies"})).await;
    assert!(size <= 40_000 && page["truncated"] == false && page["count"] == 40, "{size}");
    let (page, size) = mcp.ok_sized("observe", json!({"what": "network_bodies", "fields": ["all"]})).await;
    assert!(size <= 40_000 && page["truncated"] == true && page["count"].as_i64().unwrap() < 40, "{size}");
    // An entry larger than the whole budget comes clipped, marked, not skipped.
    let (page, size) = mcp
        .ok_sized(
            "observe",
            json!({"what": "network_bodies", "after_cursor": 37, "limit": 1, "max_chars": 2_000, "fields": ["all"]}),
        )
        .await;
    assert!(size <= 2_000);
    assert_eq!(page["entries"][0]["id"], 38);
    assert_eq!(page["entries"][0]["_clipped"], true);
    assert_eq!(page["has_more"], true, "entries 39 and 40 come after it");
    // The newest entry clipped: nothing comes after it, and the answer says so.
    let (page, _) = mcp
        .ok_sized(
            "observe",
            json!({"what": "network_bodies", "after_cursor": 39, "max_chars": 2_000, "fields": ["all"]}),
        )
        .await;
    assert_eq!(page["entries"][0]["id"], 40);
    assert_eq!(page["entries"][0]["_clipped"], true);
    assert_eq!(page["truncated"], true);
    assert_eq!(page["has_more"], false, "{page}");
}

#[tokio::test]
async fn filters_narrow_each_kind() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let levels = ["debug", "log", "info", "warn", "error"];
    server
        .ingest(
            "logs",
            (0..10)
                .map(|i| {
                    let page = if i < 4 { "http://app/checkout" } else { "http://app/cart" };
                    json!({"tabId": 1, "ts": 1000 + i, "level": levels[i % 5], "message": format!("m{i}"), "url": page})
                })
                .collect(),
        )
        .await;
    server.ingest("network_waterfall", waterfall(30, |_| 1)).await;
    server
        .ingest(
            "network_bodies",
            vec![
                json!({"method": "GET", "url": "http://a/users", "status": 200, "duration": 1529.9}),
                json!({"method": "POST", "url": "http://a/users", "status": 500, "duration": 12}),
                json!({"method": "POST", "url": "http://a/login", "status": 401}),
            ],
        )
        .await;
    server
        .ingest(
            "websocket_events",
            vec![
                json!({"connectionId": "a", "event": "open"}),
                json!({"connectionId": "a", "event": "message", "direction": "outgoing", "data": "ping"}),
                json!({"connectionId": "b", "event": "message", "direction": "incoming", "data": "pong"}),
            ],
        )
        .await;
    server.ingest("actions", vec![json!({"type": "click"}), json!({"type": "input"}), json!({"type": "click"})]).await;
    let mcp = Mcp::http(&server).await;
    let n = |a: Value| a["total"].as_i64().unwrap();

    assert_eq!(n(mcp.observe(json!({"what": "logs", "level": "warn"})).await), 2);
    assert_eq!(n(mcp.observe(json!({"what": "logs", "min_level": "info"})).await), 6);
    assert_eq!(n(mcp.observe(json!({"what": "logs", "since": 1007})).await), 3);
    assert_eq!(n(mcp.observe(json!({"what": "logs", "url": "/checkout"})).await), 4, "the page a line was logged on");
    assert_eq!(n(mcp.observe(json!({"what": "errors", "url": "/cart"})).await), 2);
    let errors = mcp.observe(json!({"what": "errors"})).await;
    assert_eq!(errors["what"], "errors");
    let whole = mcp.observe(json!({"what": "errors", "fields": ["all"]})).await;
    assert!(whole["entries"].as_array().unwrap().iter().all(|e| e["level"] == "error"));
    assert_eq!(n(errors), 2);
    assert_eq!(n(mcp.observe(json!({"what": "network_waterfall", "status_min": 400})).await), 3);
    assert_eq!(n(mcp.observe(json!({"what": "network_waterfall", "url": "r2"})).await), 11);
    // What is left once a path that repeats (a poll) is left out.
    assert_eq!(n(mcp.observe(json!({"what": "network_waterfall", "url_not": "r2"})).await), 19);
    // Several at once: none of them (the poll and the HMR client, say).
    assert_eq!(n(mcp.observe(json!({"what": "network_waterfall", "url_not": ["r2", "r1"]})).await), 8);
    assert_eq!(n(mcp.observe(json!({"what": "network_waterfall", "url_not": ["r2"]})).await), 19);
    let empty = mcp.err("observe", json!({"what": "network_waterfall", "url_not": []})).await;
    assert!(empty.contains("url_not takes one text or a list of 1 to 20 texts, got a list of 0"), "{empty}");
    let number = mcp.err("observe", json!({"what": "network_waterfall", "url_not": ["r2", 7]})).await;
    assert!(number.contains("url_not must be a string") && number.contains("a number"), "{number}");
    assert_eq!(n(mcp.observe(json!({"what": "network_bodies", "url_not": "/users"})).await), 1);
    assert_eq!(n(mcp.observe(json!({"what": "logs", "url_not": "/checkout"})).await), 6);
    assert_eq!(
        n(mcp.observe(json!({"what": "network_bodies", "method": "POST", "status_min": 400, "status_max": 499})).await),
        1
    );
    assert_eq!(n(mcp.observe(json!({"what": "network_bodies", "url": "/users"})).await), 2);
    // The slow ones: a duration at least this many ms (a request with no duration is not slow).
    assert_eq!(n(mcp.observe(json!({"what": "network_bodies", "duration_min": 1000})).await), 1);
    assert_eq!(n(mcp.observe(json!({"what": "network_bodies", "duration_min": 12})).await), 2);
    assert_eq!(n(mcp.observe(json!({"what": "websocket_events", "connectionId": "a"})).await), 2);
    assert_eq!(n(mcp.observe(json!({"what": "websocket_events", "direction": "incoming"})).await), 1);
    assert_eq!(n(mcp.observe(json!({"what": "actions", "type": "click"})).await), 2);
    // A request's type, as its entry says it: the app's fetches without a dev server's module
    // loads, whether the page saw them (`initiatorType`) or the browser in deep mode (`type`).
    server
        .ingest(
            "network_waterfall",
            vec![
                json!({"tabId": 1, "url": "http://app/api/cart", "initiatorType": "fetch", "method": "GET", "responseStatus": 200}),
                json!({"tabId": 1, "url": "http://app/api/pay", "initiatorType": "fetch", "method": "POST", "responseStatus": 500}),
                json!({"tabId": 2, "url": "http://app/api/stock", "type": "fetch", "source": "browser", "responseStatus": 200}),
                json!({"tabId": 2, "url": "http://app/logo.png", "type": "image", "source": "browser", "responseStatus": 200}),
                // A deep tab's row joined with the page's timing of it carries both words: a worker's
                // script is `script` to the browser, `other` to the page. The browser's says it.
                json!({"tabId": 2, "url": "http://app/worker.js", "type": "script", "initiatorType": "other",
                       "source": "browser", "responseStatus": 200}),
            ],
        )
        .await;
    let worker = mcp.observe(json!({"what": "network_waterfall", "url": "worker.js"})).await;
    let shown = worker["entries"][0].get("type").or(worker["common"].get("type"));
    assert_eq!(shown, Some(&json!("script")), "{worker}");
    assert_eq!(n(mcp.observe(json!({"what": "network_waterfall", "type": "other"})).await), 0);
    let fetches = mcp.observe(json!({"what": "network_waterfall", "type": "fetch"})).await;
    let urls: Vec<&str> = fetches["entries"].as_array().unwrap().iter().map(|e| e["url"].as_str().unwrap()).collect();
    assert_eq!(urls, ["http://app/api/cart", "http://app/api/pay", "http://app/api/stock"], "{fetches}");
    // The compact entries' `type` is the word the filter took (said once, as what they share).
    assert_eq!(fetches["common"]["type"], "fetch", "{fetches}");
    let images = mcp.observe(json!({"what": "network_waterfall", "type": "image", "tabId": 2})).await;
    assert_eq!(images["entries"][0]["url"], "http://app/logo.png", "{images}");
    assert_eq!(n(images), 1);
    // A type no entry has (a guess): the answer names the types kept, not just "nothing".
    let guess = mcp.observe(json!({"what": "network_waterfall", "type": "document"})).await;
    assert_eq!(n(guess.clone()), 0);
    let hint = guess["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains(r#"no network_waterfall entry has type="document"; the values kept: "script" (31), "fetch" (3), "image" (1)"#),
        "{guess}"
    );
    // A value some entry has, left out by the other filters, is not called unknown.
    let narrowed = mcp.observe(json!({"what": "network_waterfall", "type": "fetch", "url": "nowhere"})).await;
    assert!(!narrowed["hint"].as_str().unwrap_or_default().contains("values kept"), "{narrowed}");
    let post = mcp.observe(json!({"what": "network_bodies", "method": "post"})).await;
    assert!(
        post["hint"].as_str().unwrap_or_default().contains(r#"method="post"; the values kept: "POST" (2), "GET" (1)"#),
        "{post}"
    );
    assert_eq!(n(mcp.observe(json!({"what": "network_waterfall", "type": "script"})).await), 31);
    // Filtered offsets page through the matching rows only.
    let p = mcp.observe(json!({"what": "network_waterfall", "url": "r2", "offset": 8, "limit": 5})).await;
    assert_eq!((p["count"].as_i64(), p["has_more"].as_bool()), (Some(3), Some(false)));
    let tail = mcp.observe(json!({"what": "network_waterfall", "url": "r2", "offset": -2})).await;
    let urls: Vec<&str> = tail["entries"].as_array().unwrap().iter().map(|e| e["url"].as_str().unwrap()).collect();
    assert_eq!(urls, vec!["http://app/r28.js", "http://app/r29.js"]);
}

#[tokio::test]
async fn a_cursor_read_at_the_smallest_max_chars_moves_on_when_what_entries_share_is_long() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    // Two failures that share a long reason of control characters (each escaped to two characters
    // in JSON): said once in `common`, it left a cursor read's metadata no room for an entry.
    let reason: String = " x\r\n\t".repeat(40);
    let url = |n: usize| format!("http://localhost/{}", " x\r\t".repeat(n));
    let row = |url: String, error: &str| json!({"tabId": 20, "url": url, "responseStatus": 500, "method": "GET", "error": error});
    server
        .ingest(
            "network_waterfall",
            vec![row("http://localhost/a".into(), "refused"), row(url(75), &reason), row(url(900), &reason)],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let mut cursor = 1;
    let mut seen = Vec::new();
    for _ in 0..5 {
        let (page, chars) = mcp
            .ok_sized("observe", json!({"what": "network_waterfall", "max_chars": 1000, "after_cursor": cursor}))
            .await;
        assert!(chars <= 1000, "{chars} characters: {page}");
        seen.extend(page["entries"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()));
        cursor = page["cursor"].as_i64().unwrap();
        if page["has_more"] == false {
            break;
        }
    }
    assert_eq!(seen, [2, 3], "each entry once, clipped to fit");
}

#[tokio::test]
async fn failed_keeps_the_requests_that_failed_and_false_the_others() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let row = |url: &str, extra: Value| {
        let mut r = json!({"tabId": 1, "url": format!("http://app/{url}"), "initiatorType": "fetch", "source": "page"});
        r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        r
    };
    server
        .ingest(
            "network_waterfall",
            vec![
                row("ok", json!({"responseStatus": 200})),
                row("missing", json!({"responseStatus": 404})),
                row("refused", json!({"responseStatus": 0, "error": "net::ERR_CONNECTION_REFUSED"})),
                row("rejected", json!({"failed": true})),
                // Status 0 alone (an opaque response) and no status at all (still in flight) are unknown.
                row("opaque", json!({"responseStatus": 0})),
                row("pending", json!({})),
            ],
        )
        .await;
    server
        .ingest(
            "network_bodies",
            vec![
                json!({"tabId": 1, "method": "POST", "url": "http://app/save", "status": 422}),
                json!({"tabId": 1, "method": "GET", "url": "http://app/list", "status": 200}),
                json!({"tabId": 1, "method": "GET", "url": "http://app/gone", "error": "TypeError: Failed to fetch"}),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let urls = |a: Value| -> Vec<String> {
        a["entries"].as_array().unwrap().iter().map(|e| e["url"].as_str().unwrap().replace("http://app/", "")).collect()
    };
    let failed = mcp.observe(json!({"what": "network_waterfall", "failed": true})).await;
    assert_eq!(urls(failed), ["missing", "refused", "rejected"]);
    let others = mcp.observe(json!({"what": "network_waterfall", "failed": false})).await;
    assert_eq!(urls(others), ["ok", "opaque", "pending"], "unknown is not failed");
    let bodies = mcp.observe(json!({"what": "network_bodies", "failed": true, "method": "GET"})).await;
    assert_eq!(urls(bodies), ["gone"]);
    // Not a request kind, or not a boolean: a tool error that says so.
    let wrong = mcp.err("observe", json!({"what": "logs", "failed": true})).await;
    assert!(wrong.contains("failed"), "{wrong}");
    let wrong = mcp.err("observe", json!({"what": "network_waterfall", "failed": "yes"})).await;
    assert!(wrong.contains("failed must be true or false"), "{wrong}");
}

#[tokio::test]
async fn page_tabs_and_vitals() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let empty = mcp.observe(json!({"what": "page"})).await;
    assert_eq!(empty["page"], Value::Null);
    assert!(empty["hint"].as_str().unwrap().contains("extension"));
    server.post("tabs", &json!({"entries": [{"tabId": 4, "url": "http://a/", "title": "A"}]})).await;
    server.post("tabs", &json!({"entries": [{"tabId": 5, "url": "http://b/", "title": "B"}]})).await;
    server.post("vitals", &json!({"tabId": 4, "url": "http://a/", "lcp": 900.0, "cls": 0.01})).await;

    let tabs = mcp.observe(json!({"what": "tabs"})).await;
    assert_eq!(tabs["count"], 2);
    let tab_ids: Vec<i64> = tabs["tabs"].as_array().unwrap().iter().map(|t| t["tabId"].as_i64().unwrap()).collect();
    assert_eq!(tab_ids.len(), 2);
    assert!(tab_ids.contains(&4) && tab_ids.contains(&5));
    let one = mcp.observe(json!({"what": "tabs", "tabId": 4})).await;
    assert_eq!((one["count"].as_i64(), one["total"].as_i64(), one.get("hint")), (Some(1), Some(1), None), "{one}");
    let unseen = mcp.observe(json!({"what": "tabs", "tabId": 99})).await;
    assert_eq!((unseen["count"].as_i64(), unseen["total"].as_i64()), (Some(0), Some(0)), "{unseen}");
    assert!(unseen["hint"].as_str().unwrap().contains("no tab 99 seen"), "{unseen}");

    let page = mcp.observe(json!({"what": "page", "tabId": 4})).await;
    assert_eq!((page["page"]["url"].as_str(), page["page"]["title"].as_str()), (Some("http://a/"), Some("A")));
    assert_eq!(page["vitals"]["lcp"], 900.0);
    assert_eq!(page.get("hint"), None, "the tab asked for: {page}");
    // None sent or tracked, two seen: the most recently active one, and the answer says it chose.
    let chosen = mcp.observe(json!({"what": "page"})).await;
    let hint = chosen["hint"].as_str().unwrap_or_default();
    assert!(hint.contains(&format!("tab {} is the most recently active of 2 tabs", chosen["tabId"])), "{chosen}");
    let chosen = mcp.observe(json!({"what": "vitals"})).await;
    assert!(chosen["hint"].as_str().unwrap_or_default().contains("send tabId"), "{chosen}");
    mcp.ok("configure", json!({"action": "track_tab", "tabId": 5})).await;
    let page = mcp.observe(json!({"what": "page"})).await;
    assert_eq!(
        (page["tabId"].as_i64(), page["page"]["title"].as_str()),
        (Some(5), Some("B")),
        "defaults to the tracked tab"
    );
    assert_eq!(page.get("hint"), None, "the tracked tab: {page}");
    let vitals = mcp.observe(json!({"what": "vitals", "tabId": 4})).await;
    assert_eq!((vitals["vitals"]["lcp"].as_f64(), vitals["vitals"]["cls"].as_f64()), (Some(900.0), Some(0.01)));
    assert_eq!(mcp.observe(json!({"what": "vitals"})).await["vitals"], Value::Null, "tab 5 has no vitals yet");
}

/// A single-page app's routes are pages too: each new URL starts fresh vitals, and the
/// pages before it (their final values) stay in `previous`, newest first, five at most.
#[tokio::test]
async fn vitals_keep_the_tabs_earlier_pages() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::stdio(&db.path, server.port).await;
    for route in 0..7 {
        let url = format!("http://app/route{route}");
        server.post("vitals", &json!({"tabId": 9, "url": url, "cls": 0.01, "navigation": "pushState"})).await;
        // The route's final report, as the extension sends it when the route is left.
        server.post("vitals", &json!({"tabId": 9, "url": url, "inp": 100.0 + f64::from(route)})).await;
    }
    let vitals = mcp.observe(json!({"what": "vitals", "tabId": 9})).await;
    let v = &vitals["vitals"];
    assert_eq!(
        (v["url"].as_str(), v["inp"].as_f64(), v["cls"].as_f64()),
        (Some("http://app/route6"), Some(106.0), Some(0.01))
    );
    assert_eq!(v["extra"], json!({"navigation": "pushState"}), "previous is not extra data");
    let previous = v["previous"].as_array().expect("previous pages");
    let seen: Vec<(&str, f64)> =
        previous.iter().map(|p| (p["url"].as_str().unwrap(), p["inp"].as_f64().unwrap())).collect();
    assert_eq!(
        seen,
        vec![
            ("http://app/route5", 105.0),
            ("http://app/route4", 104.0),
            ("http://app/route3", 103.0),
            ("http://app/route2", 102.0),
            ("http://app/route1", 101.0),
        ]
    );
    assert!(previous.iter().all(|p| p["cls"].as_f64() == Some(0.01) && p["lcp"].is_null()));
}

/// A reload of the same URL is a new page (the extension says when each page began): the
/// page before keeps its values in `previous`, and none of them carries over into the new one.
#[tokio::test]
async fn vitals_of_a_reloaded_page_start_afresh() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::stdio(&db.path, server.port).await;
    let url = "http://app/cart";
    let first = json!({"tabId": 3, "url": url, "lcp": 500.0, "inp": 16.0, "navigation": "load", "started": 1_000});
    server.post("vitals", &first).await;
    // The same page's later report (no inp in it): still the same page.
    server.post("vitals", &json!({"tabId": 3, "url": url, "cls": 0.2, "navigation": "load", "started": 1_000})).await;
    server.post("vitals", &json!({"tabId": 3, "url": url, "lcp": 450.0, "navigation": "load", "started": 9_000})).await;
    let v = &mcp.observe(json!({"what": "vitals", "tabId": 3})).await["vitals"];
    assert_eq!((v["lcp"].as_f64(), v["inp"].as_f64(), v["cls"].as_f64()), (Some(450.0), None, None), "fresh: {v:#}");
    let previous = v["previous"].as_array().expect("the page before");
    assert_eq!(previous.len(), 1, "{v:#}");
    assert_eq!(
        (
            previous[0]["url"].as_str(),
            previous[0]["lcp"].as_f64(),
            previous[0]["inp"].as_f64(),
            previous[0]["cls"].as_f64()
        ),
        (Some(url), Some(500.0), Some(16.0), Some(0.2))
    );
}

#[tokio::test]
async fn configure_capacity_clear_and_status() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("actions", (0..30).map(|i| json!({"type": "click", "selector": format!("#b{i}")})).collect()).await;
    let mcp = Mcp::http(&server).await;
    let read = mcp.ok("configure", json!({"action": "capacity", "what": "actions"})).await;
    assert_eq!((read["capacity"].as_i64(), read["count"].as_i64()), (Some(10_000), Some(30)));
    // A whole number written with a decimal point is an integer, as JSON Schema and observe take it.
    let set = mcp.ok("configure", json!({"action": "capacity", "what": "actions", "capacity": 10.0})).await;
    assert_eq!(
        (set["capacity"].as_i64(), set["count"].as_i64(), set["oldest_id"].as_i64()),
        (Some(10), Some(10), Some(21))
    );
    let status = mcp.ok("configure", json!({"action": "status"})).await;
    assert_eq!(status["db"], db.path.display().to_string());
    assert!(status["db_bytes"].as_u64().unwrap() > 0);
    let kinds = status["kinds"].as_array().unwrap();
    assert_eq!(kinds.len(), 6);
    let actions = kinds.iter().find(|k| k["kind"] == "actions").unwrap();
    assert_eq!(
        (actions["count"].as_i64(), actions["capacity"].as_i64(), actions["newest_id"].as_i64()),
        (Some(10), Some(10), Some(30))
    );
    let cleared = mcp.ok("configure", json!({"action": "clear", "what": "all"})).await;
    assert_eq!(cleared["cleared"], 10);
    let after = mcp.observe(json!({"what": "actions"})).await;
    assert_eq!(
        (after["total"].as_i64(), after["cursor"].as_i64()),
        (Some(0), Some(30)),
        "poll from the last id issued"
    );

    for (args, message) in [
        (json!({"action": "explode"}), "unknown action"),
        (json!({}), "`action` is required"),
        (json!({"action": "clear"}), "clear needs `what`"),
        (json!({"action": "capacity", "what": "cookies"}), "unknown kind"),
        (json!({"action": "capacity", "what": "logs", "capacity": 0}), "from 1 to 1000000"),
        // A ring stays a bound on the file: an agent's typo does not lift it.
        (json!({"action": "capacity", "what": "logs", "capacity": 1_000_001}), "from 1 to 1000000, got 1000001"),
        (json!({"action": "capacity", "what": "logs", "capacity": 1e15}), "from 1 to 1000000"),
        (json!({"action": "capacity", "what": "logs", "capacity": "big"}), "capacity must be an integer"),
        (json!({"action": "track_tab", "tabId": "x"}), "tabId must be an integer or null"),
        (json!({"action": "status", "what": "logs"}), "does not apply"),
    ] {
        let error = mcp.err("configure", args.clone()).await;
        assert!(error.contains(message), "{args}: {error}");
    }
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_that_say_what_to_send() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(5, 0, Some(1))).await;
    let mcp = Mcp::stdio(&db.path, server.port).await;
    // One case per class of mistake; every case of each class is a unit test of the parser
    // (src/query/args.rs). Those that need the stored rows (a cursor past the newest id) are here.
    for (args, message) in [
        (json!({"what": "cookies"}), "send one of logs, errors, network_waterfall"),
        (json!({"what": "logs", "limit": 2.5}), "limit must be an integer"),
        (json!({"what": "logs", "max_chars": 5}), "max_chars must be between"),
        (json!({"what": "logs", "level": "fatal"}), "level must be one of"),
        (json!({"what": "logs", "offset": 3, "after_cursor": 1}), "cannot be combined"),
        (json!({"what": "extension_logs", "url": "x"}), "does not apply to what=\"extension_logs\""),
        (
            json!({"what": "logs", "after_cursor": 1_000_000}),
            "beyond the newest id of logs (5); poll with after_cursor=5",
        ),
        (json!({"what": "logs", "before_cursor": 1_000_000}), "beyond the newest id"),
    ] {
        let error = mcp.err("observe", args.clone()).await;
        assert!(error.contains(message), "{args}: {error}");
    }
    // Absurd but well-typed values answer normally, within JavaScript's exact integers; past
    // them, an error says so (a JavaScript client could not send or read them exactly).
    const MAX_EXACT: i64 = (1 << 53) - 1;
    let far = mcp.observe(json!({"what": "logs", "offset": MAX_EXACT, "limit": MAX_EXACT})).await;
    assert_eq!((far["count"].as_i64(), far["total"].as_i64()), (Some(0), Some(5)));
    let back = mcp.observe(json!({"what": "logs", "offset": -MAX_EXACT})).await;
    assert_eq!(back["count"], 5);
    assert!(back["limit"].as_i64().is_some_and(|l| l <= MAX_EXACT), "{back}");
    for args in [json!({"what": "logs", "offset": i64::MAX}), json!({"what": "logs", "offset": i64::MIN})] {
        let error = mcp.err("observe", args.clone()).await;
        assert!(error.contains("offset is out of range"), "{args}: {error}");
    }
    // The connection survived all of that.
    assert_eq!(mcp.observe(json!({"what": "logs"})).await["count"], 5);
    mcp.close().await;
}

#[tokio::test]
async fn captures_and_cursors_outlive_a_restart() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(30, 0, Some(2))).await;
    let mcp = Mcp::http(&server).await;
    let page = mcp.observe(json!({"what": "logs", "limit": 20})).await;
    let cursor = page["cursor"].as_i64().unwrap();
    mcp.close().await;
    assert_eq!(server.stop(), Some(0));

    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(5, 30, Some(2))).await;
    let mcp = Mcp::stdio(&db.path, server.port).await;
    let next = mcp.observe(json!({"what": "logs", "after_cursor": cursor})).await;
    assert_eq!(ids(&next), (21..=35).collect::<Vec<_>>());
    assert_eq!(next["entries"][0]["message"], "m20");
    mcp.close().await;
}

#[tokio::test]
async fn tools_list_describes_both_tools() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let tools = mcp.list_tools().await;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, vec!["observe", "configure"]);
    // What each does to the world, for a client that asks before calling: both only the local store.
    let hints: Vec<Value> = tools.iter().map(|t| serde_json::to_value(&t.annotations).unwrap()).collect();
    assert_eq!((&hints[0]["readOnlyHint"], &hints[0]["openWorldHint"]), (&json!(true), &json!(false)));
    assert_eq!((&hints[1]["destructiveHint"], &hints[1]["openWorldHint"]), (&json!(true), &json!(false)));
    let observe = serde_json::to_value(&tools[0].input_schema).unwrap();
    let what: Vec<&str> =
        observe["properties"]["what"]["enum"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(
        what,
        vec![
            "logs",
            "errors",
            "network_waterfall",
            "network_bodies",
            "websocket_events",
            "actions",
            "extension_logs",
            "page",
            "tabs",
            "vitals",
            "summary",
            "compare"
        ]
    );
    for p in [
        "limit",
        "offset",
        "after_cursor",
        "before_cursor",
        "tabId",
        "level",
        "min_level",
        "url",
        "url_not",
        "method",
        "status_min",
        "status_max",
        "failed",
        "duration_min",
        "connectionId",
        "direction",
        "type",
        "since",
        "max_chars",
        "search",
        "since_mark",
        "mark",
    ] {
        assert!(observe["properties"].get(p).is_some(), "observe schema lacks {p}");
    }
    assert_eq!(observe["required"], json!(["what"]));
    // The longest answer observe declares to Claude Code is the most max_chars takes, and within
    // the 500,000 characters Claude Code honours; a larger declaration would be cut to its ceiling
    // and an answer asked for between the two written to a file.
    let meta = serde_json::to_value(&tools[0].meta).unwrap();
    assert_eq!(meta["anthropic/maxResultSizeChars"], observe["properties"]["max_chars"]["maximum"]);
    assert_eq!(meta["anthropic/maxResultSizeChars"], json!(500_000));
    let configure = serde_json::to_value(&tools[1].input_schema).unwrap();
    assert!(configure["properties"]["action"]["enum"].as_array().unwrap().contains(&json!("mark")));
    assert!(configure["properties"].get("name").is_some(), "configure schema lacks name");
}

/// Raw streamable HTTP as any client sends it: initialize, then end the session
/// with DELETE. Clients from other SDKs read 200/204 as a clean end (the
/// Python SDK warns on anything else).
#[tokio::test]
async fn a_session_ends_cleanly_with_delete() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let http = reqwest::Client::new();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let answer = http
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(&init)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let session = answer.headers().get("mcp-session-id").expect("session id").to_str().unwrap().to_string();
    let body = answer.text().await.unwrap();
    assert!(body.contains("\"serverInfo\""), "{body}");

    let end = http.delete(server.url("/mcp")).header("mcp-session-id", &session).send().await.unwrap();
    assert_eq!(end.status(), 204);
    let after = http
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), 404, "an ended session is gone");
}

/// `gasoline mcp` started while another gasoline holds the port still serves
/// MCP from the same database file, sees what the other one ingests, and says
/// so on stderr.
#[tokio::test]
async fn mcp_attaches_when_the_port_is_taken() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", logs(5, 0, Some(4))).await;

    let mut raw = std::process::Command::new(common::BIN)
        .args(["mcp", "--port", &server.port.to_string(), "--db"])
        .arg(&db.path)
        .env("RUST_LOG", "info")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(raw.stderr.take().unwrap());
    let mut log = String::new();
    while !log.contains("another gasoline") {
        if std::io::BufRead::read_line(&mut stderr, &mut log).unwrap() == 0 {
            break;
        }
    }
    assert!(log.contains(&format!("port {} is served by another gasoline", server.port)), "{log}");
    drop(raw.stdin.take()); // closing stdin ends an MCP stdio server
    assert_eq!(common::wait_exit(&mut raw, std::time::Duration::from_secs(10)), Some(0));

    let mcp = Mcp::stdio(&db.path, server.port).await;
    let first = mcp.observe(json!({"what": "logs"})).await;
    assert_eq!(first["total"], 5);
    let cursor = first["cursor"].as_i64().unwrap();
    server.ingest("logs", logs(3, 5, Some(4))).await;
    let next = mcp.observe(json!({"what": "logs", "after_cursor": cursor})).await;
    assert_eq!(next["count"], 3, "new events ingested by the other process are visible: {next}");
    // Configuration written through the attached process reaches the shared file.
    mcp.ok("configure", json!({"action": "track_tab", "tabId": 4})).await;
    let tracked = Mcp::http(&server).await.observe(json!({"what": "logs", "limit": 1})).await;
    assert_eq!(tracked["tracked_tab_id"], 4);
    mcp.close().await;
    assert_eq!(server.stop(), Some(0));
}

#[tokio::test]
async fn cleared_entries_are_told_apart_from_trimmed_ones_and_backward_paging_has_its_own_fields() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--capacity", "actions=50"]);
    let click = |_| json!({"type": "click"});
    server.ingest("actions", (0..20).map(click).collect()).await;
    let mcp = Mcp::http(&server).await;
    // Cleared, not trimmed: the ring never reached its capacity.
    mcp.ok("configure", json!({"action": "clear", "what": "actions"})).await;
    server.ingest("actions", (0..5).map(click).collect()).await;
    let after = mcp.observe(json!({"what": "actions", "after_cursor": 10})).await;
    assert_eq!((after["cleared_since_cursor"].as_i64(), after["evicted_since_cursor"].as_i64()), (Some(10), Some(0)));
    assert!(after["hint"].as_str().unwrap().contains("10 entries after your cursor were cleared"), "{}", after["hint"]);
    assert_eq!(ids(&after), (21..=25).collect::<Vec<_>>());
    // Past the capacity, what falls below the ring's window counts as trimmed.
    server.ingest("actions", (0..100).map(click).collect()).await;
    let later = mcp.observe(json!({"what": "actions", "after_cursor": 25, "limit": 1})).await;
    assert_eq!((later["evicted_since_cursor"].as_i64(), later["cleared_since_cursor"].as_i64()), (Some(50), Some(0)));

    // Backward paging: prev_cursor and has_older; has_more and next_offset still point forward.
    let back = mcp.observe(json!({"what": "actions", "before_cursor": 100, "limit": 10})).await;
    assert_eq!(ids(&back), (90..100).collect::<Vec<_>>());
    assert_eq!((back["prev_cursor"].as_i64(), back["has_older"].as_bool()), (Some(90), Some(true)));
    assert_eq!(back["has_more"], true);
    // before_cursor=0: nothing older, and a cursor the server accepts back.
    let none = mcp.observe(json!({"what": "actions", "before_cursor": 0})).await;
    assert_eq!(
        (none["count"].as_i64(), none["cursor"].as_i64(), none["has_older"].as_bool()),
        (Some(0), Some(0), Some(false))
    );
    let resumed = mcp.observe(json!({"what": "actions", "after_cursor": none["cursor"], "limit": 1})).await;
    assert_eq!(ids(&resumed), vec![76]);

    // Paging backwards while the ring trims: the end of what is kept is not the start of the
    // capture, and a cursor the ring has passed is said to be so.
    let oldest = mcp.observe(json!({"what": "actions", "before_cursor": 90, "limit": 50})).await;
    assert_eq!((ids(&oldest).first().copied(), oldest["has_older"].as_bool()), (Some(76), Some(false)));
    let hint = oldest["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("no older entries: those before id 76, the oldest kept, were trimmed"), "{hint}");
    assert!(hint.contains(&format!("continue with after_cursor={}", oldest["cursor"])), "{hint}");
    server.ingest("actions", (0..100).map(click).collect()).await;
    let passed = mcp.observe(json!({"what": "actions", "before_cursor": 90})).await;
    assert_eq!((passed["count"].as_i64(), passed["has_older"].as_bool()), (Some(0), Some(false)));
    let hint = passed["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("nothing before your cursor is kept: the entries before id 176, the oldest kept"), "{hint}");
    // Forward, the hint offers the cursor alone: an offset moves as the ring trims.
    let first = mcp.observe(json!({"what": "actions", "limit": 10})).await;
    let hint = first["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains(&format!("continue with after_cursor={},", first["cursor"])) && !hint.contains("offset"),
        "{hint}"
    );
}

#[tokio::test]
async fn a_tab_whose_strings_were_cut_says_so_like_every_entry() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let url = format!("http://app/{}", "u".repeat(20_000));
    let (status, _) = server.post("tabs", &json!({"tabId": 3, "url": url, "title": "t"})).await;
    assert_eq!(status, 200);
    let mcp = Mcp::http(&server).await;
    let tabs = mcp.observe(json!({"what": "tabs"})).await;
    assert_eq!(tabs["tabs"][0]["_truncated"]["url"], url.len(), "{tabs}");
    let page = mcp.observe(json!({"what": "page", "tabId": 3})).await;
    assert_eq!(page["page"]["_truncated"]["url"], url.len(), "{page}");
}

/// A list of tabs with long URLs and titles: each cut at 500 characters, so many tabs fit a
/// small budget, not one clipped; one tab asked for by tabId comes whole.
#[tokio::test]
async fn a_list_of_tabs_with_long_urls_shows_many_tabs_each_cut() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let route = "p".repeat(3_000);
    for tab in 1..=20 {
        let (status, _) = server
            .post("tabs", &json!({"tabId": tab, "url": format!("http://localhost:5173/{route}"), "title": "Dashboard ✅ ".repeat(200)}))
            .await;
        assert_eq!(status, 200);
    }
    let mcp = Mcp::http(&server).await;
    let tabs = mcp.observe(json!({"what": "tabs", "max_tokens": 8_000})).await;
    let list = tabs["tabs"].as_array().expect("tabs");
    assert!(list.len() >= 6, "{} tabs shown", list.len());
    let url = list[0]["url"].as_str().unwrap();
    assert!(url.ends_with("… (+2522 chars)") && url.chars().count() < 600, "{url}");
    let one = mcp.observe(json!({"what": "tabs", "tabId": 7})).await;
    assert_eq!(one["tabs"][0]["url"], format!("http://localhost:5173/{route}"), "{one}");
}

/// A text ingest cut (past the 16 KiB field cap) says in a compact entry how much the page sent
/// past what is shown, not how much of the stored copy: its `_truncated` length, in bytes.
#[tokio::test]
async fn a_cut_counts_to_what_the_page_sent() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let (status, _) =
        server.post("tabs", &json!({"tabId": 1, "url": "http://localhost/", "title": "é".repeat(100_000)})).await;
    assert_eq!(status, 200);
    server.ingest("logs", vec![json!({"tabId": 1, "level": "log", "message": "m".repeat(100_000)})]).await;
    let mcp = Mcp::http(&server).await;
    let tabs = mcp.observe(json!({"what": "tabs"})).await;
    let title = tabs["tabs"][0]["title"].as_str().unwrap();
    // 500 characters shown, of 2 bytes each: 200,000 - 1,000 bytes past them.
    assert!(title.ends_with("… (+199000 bytes sent)") && title.starts_with(&"é".repeat(500)), "{title}");
    let logs = mcp.observe(json!({"what": "logs"})).await;
    let message = logs["entries"][0]["message"].as_str().or(logs["common"]["message"].as_str()).unwrap();
    assert!(message.ends_with("… (+99500 bytes sent)"), "{message}");
}

/// One entry a broken page dated far off (1e15 ms before the epoch, which ingest takes: within
/// ±2^53) does not make the others' `t` unreadable: `t0` is the earliest time of this century.
#[tokio::test]
async fn one_absurd_time_leaves_the_others_readable() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_790_000_000_000i64;
    let log = |ts: i64, m: &str| json!({"tabId": 1, "ts": ts, "level": "log", "message": m});
    server.ingest("logs", vec![log(t, "a"), log(-1_000_000_000_000_000, "broken"), log(t + 10, "b")]).await;
    let mcp = Mcp::http(&server).await;
    let answer = mcp.observe(json!({"what": "logs"})).await;
    assert_eq!(answer["common"]["t0"], t, "{answer}");
    let times: Vec<i64> = answer["entries"].as_array().unwrap().iter().map(|e| e["t"].as_i64().unwrap()).collect();
    assert_eq!((times[0], times[2]), (0, 10), "{answer}");
    assert!(times[1] < 0, "the broken one alone reads off: {answer}");
}

/// A form's submit says where and how it posts, and a frame's load which frame, in the compact
/// entries an agent reads first (a Flask review: the POST that led to a 500 was only in drill-downs,
/// and an iframe's load read as the top page's).
#[tokio::test]
async fn compact_actions_say_where_a_form_posts_and_which_frame() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server
        .ingest(
            "actions",
            vec![
                json!({"tabId": 1, "ts": 1000, "type": "navigate", "how": "load", "url": "http://app/items/new"}),
                json!({"tabId": 1, "ts": 1100, "type": "submit", "selector": "form#new-item", "method": "POST",
                       "action": "http://app/items/new", "url": "http://app/items/new"}),
                json!({"tabId": 1, "ts": 1200, "type": "navigate", "how": "load", "url": "http://app/widgets/weather", "frameId": 5}),
                // A single-page app's form, whose handler kept the page: no GET went to its action.
                json!({"tabId": 1, "ts": 1300, "type": "submit", "selector": "form#cart", "method": "GET",
                       "action": "http://app/", "defaultPrevented": true, "url": "http://app/"}),
            ],
        )
        .await;
    let answer = mcp.observe(json!({"what": "actions"})).await;
    let entries = answer["entries"].as_array().expect("entries");
    assert_eq!(
        (&entries[1]["method"], &entries[1]["action"]),
        (&json!("POST"), &json!("http://app/items/new")),
        "{answer}"
    );
    assert_eq!(entries[2]["frameId"], 5, "{answer}");
    assert!(entries[0].get("frameId").is_none(), "the top page's load names no frame: {answer}");
    assert_eq!(entries[3]["defaultPrevented"], true, "{answer}");
    assert!(entries[1].get("defaultPrevented").is_none(), "{answer}");
}
