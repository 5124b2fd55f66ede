//! Answers that fit the agent: every answer within `max_tokens` as a real BPE
//! tokenizer counts it (cl100k, from tiktoken-rs) and within `max_chars`;
//! compact entries that keep the logged objects; drill-down by id; summaries;
//! error context; since_navigation. Real MCP clients over stdio and streamable
//! HTTP against the real binary, fed over HTTP.

mod common;

use std::sync::LazyLock;

use common::{Mcp, Rng, Server, TempDb, corpus, entries, ids, text_of};
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

static BPE: LazyLock<CoreBPE> = LazyLock::new(|| tiktoken_rs::cl100k_base().expect("cl100k_base is embedded"));

fn tokens(text: &str) -> usize {
    BPE.encode_with_special_tokens(text).len()
}

/// Calls observe and checks the answer against its budget; returns it parsed.
async fn within_budget(mcp: &Mcp, args: Value) -> Value {
    let result = mcp.call("observe", args.clone()).await;
    let text = text_of(&result);
    assert_ne!(result.is_error, Some(true), "{args}: {text}");
    let max_tokens = args["max_tokens"].as_u64().unwrap_or(8_000) as usize;
    let max_chars = args["max_chars"].as_u64().unwrap_or(40_000) as usize;
    // Characters as a JavaScript client counts them (UTF-16 units; an emoji is two).
    let (t, c) = (tokens(&text), text.encode_utf16().count());
    assert!(t <= max_tokens, "{args}: {t} tokens > max_tokens {max_tokens}");
    assert!(c <= max_chars, "{args}: {c} characters > max_chars {max_chars}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args}: not JSON ({e}): {text}"))
}

/// A database with realistic captures of every kind, a 10,000-entry log flood
/// and three 1 MiB bodies.
async fn realistic(server: &Server) {
    let mut rng = Rng::new(7);
    server.ingest("logs", corpus::logs(&mut rng, 10_000, 1)).await;
    server.ingest("network_waterfall", corpus::waterfall(&mut rng, 1_500, 1)).await;
    server.ingest("network_bodies", corpus::bodies(&mut rng, 3, 1, 3)).await;
    server.ingest("network_bodies", corpus::bodies(&mut rng, 60, 2, 0)).await;
    server.ingest("websocket_events", corpus::websocket(&mut rng, 1_500, 1)).await;
    server.ingest("actions", corpus::actions(&mut rng, 800, 1)).await;
    server.ingest("extension_logs", corpus::extension_logs(&mut rng, 200)).await;
    for tab in 1..=3 {
        let (status, _) = server
            .post("tabs", &json!({"tabId": tab, "url": format!("http://localhost:5173/{}", "p".repeat(3000)), "title": "Dashboard ✅ ".repeat(200)}))
            .await;
        assert_eq!(status, 200);
        let (status, _) = server
            .post("vitals", &json!({"tabId": tab, "url": "http://localhost:5173/", "lcp": 1234.5, "cls": 0.01, "inp": 88.0, "fcp": 321.0, "ttfb": 45.0}))
            .await;
        assert_eq!(status, 200);
    }
}

const KINDS: [&str; 7] =
    ["logs", "errors", "network_waterfall", "network_bodies", "websocket_events", "actions", "extension_logs"];

fn budgets() -> Vec<Value> {
    vec![
        json!({}),
        json!({"max_tokens": 500}),
        json!({"max_tokens": 2_000, "max_chars": 3_000}),
        json!({"max_tokens": 30_000, "max_chars": 200_000}),
    ]
}

fn with(base: Value, extra: &Value) -> Value {
    let mut out = base;
    for (k, v) in extra.as_object().unwrap() {
        out[k] = v.clone();
    }
    out
}

async fn every_what_within_budget(mcp: &Mcp) {
    for budget in budgets() {
        for what in KINDS {
            for fields in [Value::Null, json!(["all"])] {
                for position in [json!({}), json!({"offset": -50}), json!({"after_cursor": 0})] {
                    let args = with(with(json!({"what": what, "fields": fields}), &position), &budget);
                    let answer = within_budget(mcp, args).await;
                    assert!(answer["count"].as_u64().unwrap() > 0, "{what}: {answer}");
                }
            }
        }
        for what in ["summary", "tabs", "page", "vitals"] {
            within_budget(mcp, with(json!({"what": what}), &budget)).await;
        }
        within_budget(mcp, with(json!({"what": "errors", "group": true}), &budget)).await;
        // Everything is before the mark: every group, request and warning is "gone".
        within_budget(mcp, with(json!({"what": "compare", "mark": "answers"}), &budget)).await;
        within_budget(mcp, with(json!({"what": "network_bodies", "search": "a", "fields": ["all"]}), &budget)).await;
        within_budget(mcp, with(json!({"what": "errors", "context": "full", "offset": -20}), &budget)).await;
        // Drill-down into the three 1 MiB bodies: clipped to the budget, never over it.
        let drilled = within_budget(mcp, with(json!({"what": "network_bodies", "ids": [1, 2, 3]}), &budget)).await;
        assert!(drilled["count"].as_u64().unwrap() >= 1, "{drilled}");
    }
}

#[tokio::test]
async fn every_answer_fits_max_tokens_by_a_real_tokenizer_over_both_transports() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--body-cap", "2000000"]);
    realistic(&server).await;
    let http = Mcp::http(&server).await;
    http.ok("configure", json!({"action": "mark", "name": "answers"})).await;
    every_what_within_budget(&http).await;
    http.close().await;
    let stdio = Mcp::stdio(&db.path, server.port).await;
    every_what_within_budget(&stdio).await;
    stdio.close().await;
}

/// Follows the continuation of a kind under a budget; returns every id seen.
async fn follow(mcp: &Mcp, what: &str, budget: &Value, by_offset: bool) -> Vec<i64> {
    let mut seen = Vec::new();
    let (mut cursor, mut offset) = (0, 0);
    for _ in 0..5_000 {
        let args = if by_offset {
            with(json!({"what": what, "offset": offset}), budget)
        } else {
            with(json!({"what": what, "after_cursor": cursor, "limit": 0}), budget)
        };
        let page = within_budget(mcp, args).await;
        seen.extend(ids(&page));
        if by_offset {
            match page["next_offset"].as_i64() {
                Some(next) => offset = next,
                None => return seen,
            }
        } else {
            cursor = page["cursor"].as_i64().unwrap();
            if page["has_more"] == false {
                return seen;
            }
        }
    }
    panic!("{what}: paging did not end");
}

#[tokio::test]
async fn paging_under_any_budget_yields_every_entry_exactly_once() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--body-cap", "2000000"]);
    realistic(&server).await;
    let mcp = Mcp::http(&server).await;
    let all = |n: i64| (1..=n).collect::<Vec<_>>();
    assert_eq!(follow(&mcp, "logs", &json!({}), false).await, all(10_000), "logs, default budget");
    for budget in [json!({}), json!({"max_tokens": 700})] {
        assert_eq!(follow(&mcp, "actions", &budget, true).await, all(800), "actions {budget}");
        assert_eq!(follow(&mcp, "actions", &budget, false).await, all(800), "actions {budget}");
        let whole = with(budget.clone(), &json!({"fields": ["all"]}));
        assert_eq!(follow(&mcp, "network_bodies", &whole, false).await, all(63), "bodies {whole}");
        assert_eq!(follow(&mcp, "network_bodies", &whole, true).await, all(63), "bodies by offset {whole}");
    }
}

fn flood(n: usize, tab: i64) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({"tabId": tab, "ts": 1_732_380_000_000i64 + i as i64, "level": "log", "source": "console",
                   "url": "http://localhost:5173/", "location": "http://localhost:5173/src/main.ts:12:9",
                   "message": format!("event {i} of the flood {}", json!({"i": i, "user": {"id": i, "name": format!("user{i}")}, "tags": ["a", "b"]}))})
        })
        .collect()
}

#[tokio::test]
async fn compact_entries_keep_the_logged_objects_and_all_or_id_return_everything() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let sent = flood(3_000, 4);
    server.ingest("logs", sent.clone()).await;
    let small = TempDb::new();
    let page = Server::start(&small.path, &[]);
    page.ingest("logs", flood(100, 4)).await;
    let mcp = Mcp::http(&server).await;

    let last = within_budget(&mcp, json!({"what": "logs", "offset": -100})).await;
    assert_eq!(last["count"], 100);
    assert_eq!(last["common"]["tabId"], 4, "shared values are said once: {}", last["common"]);
    assert_eq!(last["common"]["source"], "console");
    assert_eq!(last["common"]["url"], "http://localhost:5173/");
    let listed = entries(&last);
    for (i, e) in listed.iter().enumerate() {
        let n = 2_900 + i;
        assert_eq!(e["tabId"], 4);
        let message = e["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("{{i:{n},user:{{id:{n},name:'user{n}'}},tags:['a','b']}}")),
            "the object's content is kept: {message}"
        );
        assert_eq!(e["t"].as_i64().unwrap() + last["common"]["t0"].as_i64().unwrap(), 1_732_380_000_000 + n as i64);
    }
    // Target: at most 40 tokens per entry (median), the objects' content kept, for the
    // last 100 logs of a page logging
    // `console.log('event i of the flood', {i, user: {id, name}, tags: ['a', 'b']})`.
    let flood_page = within_budget(&Mcp::http(&page).await, json!({"what": "logs", "offset": -100})).await;
    assert_eq!(flood_page["count"], 100);
    let median = median_tokens(&flood_page);
    assert!(median <= 40, "median tokens per compact entry: {median}");
    // With 4-digit counters cl100k spends a token more on each number; still well under
    // the ~100 tokens an entry cost before compact entries.
    assert!(median_tokens(&last) <= 48, "{}", median_tokens(&last));

    // fields=["all"] and id= return every stored field as sent.
    let whole = within_budget(&mcp, json!({"what": "logs", "offset": -3, "fields": ["all"]})).await;
    let drilled = within_budget(&mcp, json!({"what": "logs", "id": 3_000})).await;
    assert_eq!(drilled["count"], 1);
    for (answer, index) in [(&whole["entries"][2], 2_999), (&drilled["entries"][0], 2_999)] {
        for (k, v) in sent[index].as_object().unwrap() {
            assert_eq!(&answer[k], v, "field {k} as stored");
        }
        assert_eq!(answer["id"], 3_000);
    }
    // A chosen set of fields.
    let chosen = within_budget(&mcp, json!({"what": "logs", "offset": -2, "fields": ["location", "ts"]})).await;
    let e = &entries(&chosen)[0];
    assert_eq!(e["location"], "http://localhost:5173/src/main.ts:12:9");
    assert_eq!(e["ts"], 1_732_380_002_998i64);
    assert!(e.get("message").is_none(), "{e}");
    // Ids that do not exist: an empty answer that says so.
    let missing = within_budget(&mcp, json!({"what": "logs", "ids": [5, 999_999]})).await;
    assert_eq!(ids(&missing), vec![5]);
    assert_eq!(missing["not_found"], json!([999_999]));
    assert!(
        missing["hint"].as_str().unwrap().contains("no logs entry with the ids in not_found"),
        "{}",
        missing["hint"]
    );
    // An id that is stored but left out by the other arguments is not "not found".
    let narrowed = within_budget(&mcp, json!({"what": "logs", "ids": [5, 6, 999_999], "search": "event 5 of"})).await;
    assert_eq!(ids(&narrowed), vec![6], "{narrowed}");
    assert_eq!((&narrowed["filtered_out"], &narrowed["not_found"]), (&json!([5]), &json!([999_999])));
    let hint = narrowed["hint"].as_str().unwrap();
    assert!(hint.contains("filtered_out are stored but do not match the other arguments"), "{hint}");
    let as_errors = within_budget(&mcp, json!({"what": "errors", "id": 6})).await;
    assert_eq!((&as_errors["filtered_out"], &as_errors["not_found"]), (&json!([6]), &json!([])), "{as_errors}");
    assert!(as_errors["hint"].as_str().unwrap().contains("or not errors: ask what=logs"), "{as_errors}");
    // A large entry among the ids asked for does not keep the small ones after it out.
    let big: Vec<Value> = (0..3)
        .map(|k| json!({"tabId": 9, "level": "warn", "message": if k == 1 { "y".repeat(15_000) } else { format!("small {k}") }}))
        .collect();
    let (first, _) = server.ingest("logs", big).await;
    let drill =
        within_budget(&mcp, json!({"what": "logs", "ids": [first, first + 1, first + 2], "max_tokens": 1000})).await;
    assert_eq!(ids(&drill), vec![first, first + 2], "{drill}");
    assert_eq!(drill["omitted_ids"], json!([first + 1]));
    // 50 ids past every stored one, at the smallest budget: the answer still fits.
    let far: Vec<i64> = (0..50).map(|k| (1i64 << 53) - 1 - k).collect();
    let none = within_budget(&mcp, json!({"what": "logs", "ids": far, "max_tokens": 500})).await;
    assert_eq!(none["not_found"].as_array().unwrap().len(), 50);
}

/// Median tokens of an answer's entries, each with the comma that joins it.
fn median_tokens(answer: &Value) -> usize {
    let mut per_entry: Vec<usize> =
        answer["entries"].as_array().unwrap().iter().map(|e| tokens(&serde_json::to_string(e).unwrap()) + 1).collect();
    per_entry.sort_unstable();
    per_entry[per_entry.len() / 2]
}

#[tokio::test]
async fn summary_groups_messages_by_fingerprint_with_exact_counts() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let templates = |i: usize| match i % 3 {
        0 => json!({"level": "log", "message": format!("event {i} of 3000")}),
        1 => {
            json!({"level": "warn", "message": format!("user 3f2a9c4e-1b2c-4d5e-8f90-{:012x} logged in from https://app.example.com/u/{i}", i)})
        }
        _ => json!({"level": "error", "message": format!("cache miss for key 0x{:x} after {} ms", i * 7919, i % 17)}),
    };
    let all: Vec<Value> = (0..3_000)
        .map(|i| {
            let mut e = templates(i);
            e["tabId"] = json!(1);
            e["ts"] = json!(1_732_380_000_000i64 + i as i64);
            e
        })
        .collect();
    server.ingest("logs", all).await;
    server.ingest("network_waterfall", corpus::waterfall(&mut Rng::new(3), 200, 1)).await;
    let mcp = Mcp::http(&server).await;

    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    assert!(tokens(&summary.to_string()) < 1_500, "a few hundred tokens: {}", tokens(&summary.to_string()));
    assert_eq!(summary["kinds"]["logs"]["count"], 3_000);
    assert_eq!(summary["kinds"]["network_waterfall"]["count"], 200);
    let logs = summary["logs"]["groups"].as_array().unwrap();
    let errors = summary["errors"]["groups"].as_array().unwrap();
    assert_eq!(summary["logs"]["groups_total"], 2, "{}", summary["logs"]);
    assert_eq!(summary["errors"]["groups_total"], 1, "{}", summary["errors"]);
    let mut groups: Vec<(String, i64)> = logs
        .iter()
        .chain(errors)
        .map(|g| (g["fingerprint"].as_str().unwrap().to_string(), g["count"].as_i64().unwrap()))
        .collect();
    groups.sort();
    assert_eq!(
        groups,
        vec![
            ("cache miss for key <hex> after <n> ms".to_string(), 1_000),
            ("event <n> of <n>".to_string(), 1_000),
            ("user <uuid> logged in from https://app.example.com/u/<n>".to_string(), 1_000),
        ]
    );
    assert_eq!(errors[0]["first_id"], 3);
    assert_eq!(errors[0]["last_id"], 3_000);
    let failed = &summary["network_waterfall"];
    assert!(failed["by_status"]["2xx"].as_i64().unwrap() > 0, "{failed}");
    assert_eq!(failed["by_host"]["localhost:5173"], 200);

    let grouped = within_budget(&mcp, json!({"what": "errors", "group": true})).await;
    assert_eq!(grouped["total_groups"], 1);
    assert_eq!(grouped["occurrences"], 1_000);
    assert_eq!(grouped["groups"][0]["count"], 1_000);
}

/// The Vue review's flood: vue-i18n warns of each missing key (one group a key, 36 times each) and
/// Vue of props (12 times), and Vue Router once of a redirect loop, the one that matters. One
/// group of each tag comes before a second: the router's warning is among the summary's five, and
/// `what=logs group=true` lists every group, warnings first, errors with them, each with its level.
#[tokio::test]
async fn one_library_s_flood_of_warnings_does_not_hide_another_s_one_warning() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let warn = |i: i64, message: String| json!({"tabId": 1, "ts": t + i, "level": "warn", "message": message});
    let mut logs = Vec::new();
    for round in 0..36 {
        for key in ["home", "profile", "settings", "orders"] {
            logs.push(warn(round, format!("[intlify] Not found 'nav.{key}' key in 'en' locale messages.")));
        }
        if round < 12 {
            logs.push(warn(round, "[Vue warn]: Missing required prop: \"title\"".into()));
            logs.push(warn(round, "[Vue warn]: Extraneous non-props attributes (class) were passed".into()));
        }
        logs.push(json!({"tabId": 1, "ts": t + round, "level": "log", "message": "render"}));
    }
    logs.push(warn(100, "[Vue Router warn]: Detected a possibly infinite redirection in a navigation guard".into()));
    logs.push(json!({"tabId": 1, "ts": t + 101, "level": "error", "message": "Error: saving failed"}));
    server.ingest("logs", logs).await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let shown: Vec<&str> =
        summary["logs"]["groups"].as_array().unwrap().iter().map(|g| g["fingerprint"].as_str().unwrap()).collect();
    assert_eq!(shown.len(), 5, "{summary}");
    let tags: Vec<&str> = shown.iter().map(|f| &f[..f.find(']').map_or(0, |i| i + 1)]).collect();
    assert_eq!(tags[..3], ["[intlify]", "[Vue warn]", "[Vue Router warn]"], "{summary}");
    let grouped = within_budget(&mcp, json!({"what": "logs", "group": true})).await;
    assert_eq!(grouped["what"], "logs", "{grouped}");
    let groups = grouped["groups"].as_array().unwrap();
    assert_eq!(grouped["total_groups"], 9, "{grouped}");
    let levels: Vec<&str> = groups.iter().map(|g| g["level"].as_str().unwrap()).collect();
    assert_eq!(levels[0], "error", "{grouped}");
    assert!(levels[1..8].iter().all(|l| *l == "warn"), "{grouped}");
    assert_eq!(levels[8], "log", "{grouped}");
    assert_eq!(groups[8]["count"], 36, "{grouped}");
    let narrowed =
        within_budget(&mcp, json!({"what": "logs", "group": true, "min_level": "warn", "search": "intlify"})).await;
    assert_eq!(narrowed["total_groups"], 4, "{narrowed}");
    assert!(narrowed["hint"].as_str().unwrap_or_default().contains("what=logs id="), "{narrowed}");
}

/// A dev server's chatter on every load ("[vite] connected.", a devtools notice) outnumbers the
/// app's one warning: the summary lists warnings first, then the most frequent.
#[tokio::test]
async fn summary_lists_the_app_s_warnings_before_the_dev_server_s_chatter() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mut logs = Vec::new();
    for load in 0..8 {
        for (level, message) in [
            ("debug", "[vite] connecting..."),
            ("debug", "[vite] connected."),
            ("info", "Download the React DevTools for a better development experience"),
            ("log", "[vite] hot updated: /src/App.tsx"),
            ("log", "render"),
            ("log", "cart loaded"),
        ] {
            logs.push(json!({"tabId": 1, "ts": 1_732_380_000_000i64 + load, "level": level, "message": message}));
        }
    }
    logs.push(json!({"tabId": 1, "ts": 1_732_380_000_100i64, "level": "warn", "message": "low stock for sku 42"}));
    logs.push(json!({"tabId": 1, "ts": 1_732_380_000_101i64, "level": "warn", "message": "request failed, retrying"}));
    server.ingest("logs", logs).await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let listed: Vec<(&str, &str)> = summary["logs"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["level"].as_str().unwrap(), g["fingerprint"].as_str().unwrap()))
        .collect();
    assert_eq!(listed.len(), 5, "{summary}");
    // As frequent: the earlier first (the first of a cascade is its cause).
    assert_eq!(listed[..2], [("warn", "low stock for sku <n>"), ("warn", "request failed, retrying")], "{summary}");
    assert_eq!(listed[2].0, "info", "{summary}");
    assert_eq!(summary["logs"]["groups_total"], 8, "{summary}");
    assert_eq!(summary["logs"]["not_shown"], 3, "the groups left out are said: {summary}");
    assert!(summary["hint"].as_str().unwrap().contains("not_shown"), "and the hint names where: {summary}");
    // Groups that all fit: the hint names no not_shown, which the answer does not have.
    let few = within_budget(&mcp, json!({"what": "summary", "tabId": 1, "since": 1_732_380_000_100i64})).await;
    assert_eq!((few["logs"].get("not_shown"), few["errors"].get("not_shown")), (None, None), "{few}");
    assert!(!few["hint"].as_str().unwrap().contains("not_shown"), "{few}");
}

/// Expo wraps every console call: each log's call site is Expo's (library code), and the app's own
/// line is among its callers. Such a line is the app's, listed ahead of the libraries' chatter.
#[tokio::test]
async fn a_line_the_app_logs_through_a_library_s_wrapper_is_the_app_s() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let wrapper = json!({"source": "node_modules/expo/build/async-require/setupHMR.js", "line": 20, "column": 30, "ignored": true});
    let logged = |ts: i64, message: &str, caller: Option<Value>| {
        let mut entry = json!({"tabId": 1, "ts": 1_732_380_000_000i64 + ts, "level": "log", "message": message,
                               "location": "http://localhost:8081/node_modules/expo/build/async-require/setupHMR.js:20:30",
                               "original": wrapper});
        if let Some(original) = caller {
            entry["frames"] = json!([{"at": "http://localhost:8081/entry.bundle:97552:13", "original": original}]);
        }
        entry
    };
    let mut logs: Vec<Value> =
        (0..6).map(|k| logged(k, "Download the React DevTools for a better development experience", None)).collect();
    logs.push(logged(10, "greet clicked", Some(json!({"source": "components/Greeting.tsx", "line": 9, "column": 13}))));
    server.ingest("logs", logs).await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    assert_eq!(summary["logs"]["groups"][0]["example"], "greet clicked", "{summary}");
}

/// A component's error, then the framework's errors about the tree it broke, each once: the list
/// of error groups leads with the first, the cause, and says what it leaves out.
#[tokio::test]
async fn summary_leads_a_cascade_with_its_first_error() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let error = |dt: i64, m: &str| json!({"tabId": 1, "ts": t + dt, "level": "error", "message": m});
    let mut logs: Vec<Value> = (0..12).map(|k| error(k, "TypeError: data.actor.name is undefined")).collect();
    logs.push(error(100, "TypeError: props.amount.toFixed is not a function"));
    for (k, m) in [
        "Cannot read __vnode",
        "Cannot read subTree",
        "Cannot read vnode",
        "Unhandled error during execution of render",
        "Unhandled error during execution of scheduler flush",
    ]
    .iter()
    .enumerate()
    {
        logs.push(error(101 + k as i64, m));
    }
    server.ingest("logs", logs).await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let errors = &summary["errors"];
    let shown: Vec<&str> =
        errors["groups"].as_array().unwrap().iter().map(|g| g["example"].as_str().unwrap()).collect();
    assert_eq!(
        shown[..2],
        ["TypeError: data.actor.name is undefined", "TypeError: props.amount.toFixed is not a function"],
        "{summary}"
    );
    assert_eq!((errors["groups_total"].as_u64(), errors["not_shown"].as_u64()), (Some(7), Some(2)), "{summary}");
}

/// A connection that stays open (a dev server's HMR socket, an event stream) lasts as long as its
/// page: the summary's slowest requests leave it out.
/// A request that fails the same way on every load is one item of the summary's failed list,
/// with its count: the one failure that differs (a form's CSRF 403) is not pushed off the list.
#[tokio::test]
async fn summary_lists_a_request_failing_the_same_way_once_with_its_count() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let row = |i: i64, method: &str, url: &str, status: i64| json!({"tabId": 1, "ts": t + i, "url": url, "method": method, "responseStatus": status, "initiatorType": "fetch", "source": "page"});
    let mut rows = vec![row(0, "POST", "http://127.0.0.1:8000/api/contact/", 403)];
    for load in 0..6 {
        rows.push(row(10 + load * 2, "GET", "http://127.0.0.1:8000/static/logo.png", 404));
        rows.push(row(11 + load * 2, "GET", "http://127.0.0.1:8000/api/stats/", 500));
    }
    let (first, _) = server.ingest("network_waterfall", rows).await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let waterfall = &summary["network_waterfall"];
    assert_eq!(waterfall["failed_count"], 13, "{waterfall}");
    let failed = waterfall["failed"].as_array().expect("failed");
    let listed: Vec<(String, Option<i64>)> =
        failed.iter().map(|f| (f["url"].as_str().unwrap().to_owned(), f["count"].as_i64())).collect();
    assert_eq!(
        listed,
        vec![
            ("http://127.0.0.1:8000/api/stats/".to_owned(), Some(6)),
            ("http://127.0.0.1:8000/static/logo.png".to_owned(), Some(6)),
            ("http://127.0.0.1:8000/api/contact/".to_owned(), None),
        ],
        "{waterfall}"
    );
    assert_eq!(failed[0]["id"], json!(first + 12), "the newest of the group: {waterfall}");
    assert!(waterfall.get("failed_not_shown").is_none(), "{waterfall}");
    // Nothing left out, so the hint does not send the agent to what it says was left out.
    assert!(!summary["hint"].as_str().unwrap_or_default().contains("failed_not_shown"), "{summary}");
}

#[tokio::test]
async fn summary_s_slowest_requests_leave_out_connections_that_stay_open_and_long_polls() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let row = |i: i64, url: &str, extra: Value| {
        let mut r = json!({"tabId": 1, "ts": t + i, "url": url, "source": "page"});
        r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        r
    };
    server
        .ingest(
            "network_waterfall",
            vec![
                row(1, "ws://localhost:5173/?token=x", json!({"initiatorType": "websocket", "duration": 60_000.0})),
                row(
                    2,
                    "http://localhost:5173/events",
                    json!({"type": "eventsource", "duration": 30_000.0, "source": "browser"}),
                ),
                // The same stream as a service worker fetched it for the page (deep mode): `stream`.
                row(
                    6,
                    "http://localhost:5173/events",
                    json!({"type": "fetch", "duration": 29_000.0, "source": "browser", "stream": true, "responseStatus": 200}),
                ),
                // Socket.IO's polling transport: each GET waits for the server's next message.
                row(
                    5,
                    "http://localhost:5173/socket.io/?EIO=4&transport=polling&t=PkX9a&sid=abc",
                    json!({"initiatorType": "xmlhttprequest", "duration": 25_000.0, "responseStatus": 200}),
                ),
                row(
                    3,
                    "http://localhost:5173/api/slow",
                    json!({"initiatorType": "fetch", "duration": 900.0, "responseStatus": 200}),
                ),
                row(
                    4,
                    "http://localhost:5173/api/fast",
                    json!({"initiatorType": "fetch", "duration": 10.0, "responseStatus": 200}),
                ),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let slowest: Vec<&str> = summary["network_waterfall"]["slowest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    assert_eq!(slowest, ["http://localhost:5173/api/slow", "http://localhost:5173/api/fast"], "{summary}");
    assert_eq!(summary["kinds"]["network_waterfall"]["count"], 6, "still counted");
}

#[tokio::test]
async fn an_error_names_the_failed_request_and_the_action_just_before_it_in_its_tab() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    server
        .ingest(
            "actions",
            vec![
                json!({"tabId": 1, "ts": t, "type": "navigate", "how": "load", "url": "http://app/"}),
                json!({"tabId": 1, "ts": t + 1_000, "type": "click", "selector": "#buy"}),
                json!({"tabId": 2, "ts": t + 1_000, "type": "click", "selector": "#other"}),
                // An iframe the page adds, after its load: not where the page came from.
                json!({"tabId": 1, "ts": t + 1_500, "type": "navigate", "how": "load", "url": "about:srcdoc", "frameId": 4}),
            ],
        )
        .await;
    server
        .ingest(
            "network_bodies",
            vec![
                json!({"tabId": 1, "ts": t + 2_000, "method": "POST", "url": "http://app/api/buy", "status": 500}),
                json!({"tabId": 1, "ts": t + 2_100, "method": "GET", "url": "http://app/api/ok", "status": 200}),
                json!({"tabId": 2, "ts": t + 2_000, "method": "GET", "url": "http://app/api/x", "status": 503}),
            ],
        )
        .await;
    server
        .ingest(
            "logs",
            vec![
                json!({"tabId": 1, "ts": t + 3_000, "level": "error", "message": "TypeError: order is undefined"}),
                json!({"tabId": 3, "ts": t + 3_000, "level": "error", "message": "in another tab"}),
                json!({"tabId": 1, "ts": t + 60_000, "level": "error", "message": "much later"}),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    let list = entries(&errors);
    assert_eq!(list[0]["context"], json!({"network_bodies": [1], "action": 2, "navigation": 1}), "{}", list[0]);
    // (The iframe's load is the newest action before the error: it is no "action" either.)
    assert_eq!(list[1]["context"], json!({}), "another tab: {}", list[1]);
    assert_eq!(list[2]["context"], json!({}), "outside the window: {}", list[2]);
    let wide = within_budget(&mcp, json!({"what": "errors", "context_ms": 120_000})).await;
    assert_eq!(entries(&wide)[2]["context"]["network_bodies"], json!([1]));

    let full = within_budget(&mcp, json!({"what": "errors", "context": "full", "limit": 1})).await;
    let context = &full["entries"][0]["context"];
    assert_eq!(context["network_bodies"][0]["url"], "http://app/api/buy");
    assert_eq!(context["network_bodies"][0]["status"], 500);
    assert_eq!(context["action"]["selector"], "#buy");
    assert_eq!(context["navigation"]["how"], "load");
}

/// A failed request that began before the user's last action is named so (`before_action`): it
/// came from another interaction (click A's request failed, click B's handler threw), or is data
/// the action then read; the agent can tell which of the listed requests the action started.
#[tokio::test]
async fn an_error_s_context_says_which_failed_requests_began_before_the_last_action() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let click = |dt: i64, sel: &str| json!({"tabId": 1, "ts": t + dt, "type": "click", "selector": sel});
    server
        .ingest(
            "actions",
            vec![
                json!({"tabId": 1, "ts": t, "type": "navigate", "how": "load", "url": "http://app/"}),
                click(1_000, "#load-orders"),
                click(1_800, "#load-rate"),
            ],
        )
        .await;
    let request = |dt: i64, path: &str, status: i64| json!({"tabId": 1, "ts": t + dt, "method": "GET", "url": format!("http://app{path}"), "status": status});
    server.ingest("network_bodies", vec![request(1_010, "/api/orders", 500), request(1_810, "/api/stats", 503)]).await;
    server
        .ingest("logs", vec![json!({"tabId": 1, "ts": t + 2_000, "level": "error", "message": "rate is null"})])
        .await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    assert_eq!(
        entries(&errors)[0]["context"],
        json!({"network_bodies": [1, 2], "before_action": {"network_bodies": [1]}, "action": 3, "navigation": 1}),
        "{errors}"
    );
    let full = within_budget(&mcp, json!({"what": "errors", "context": "full"})).await;
    assert_eq!(entries(&full)[0]["context"]["before_action"], json!({"network_bodies": [1]}), "{full}");
    assert_eq!(entries(&full)[0]["context"]["action"]["selector"], "#load-rate", "{full}");
}

/// A failure a framework answered under 200 (gRPC-web's trailer, GraphQL's errors) names in its
/// context the response that told it: no status marks that request failed, and the context listed
/// an earlier call's failed request instead.
#[tokio::test]
async fn a_framework_error_s_context_names_the_response_that_told_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let call = |dt: i64, method: &str, status: i64| json!({"tabId": 1, "ts": t + dt, "method": "POST", "url": format!("http://app/shop.v1.CartService/{method}"), "status": status});
    server
        .ingest(
            "network_bodies",
            vec![call(0, "Checkout", 400), call(1_000, "GetCart", 200), call(1_100, "AddItem", 200)],
        )
        .await;
    let told = json!({"tabId": 1, "ts": t + 1_200, "level": "error", "source": "framework",
                      "resourceUrl": "http://app/shop.v1.CartService/GetCart",
                      "message": "gRPC-web: CartService/GetCart failed: NOT_FOUND: cart missing-42 not found (answered 200)"});
    server.ingest("logs", vec![told]).await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    assert_eq!(entries(&errors)[0]["context"]["response"], 2, "{errors}");
}

/// A cascade's errors share their context (the request that failed, the click, the page's load):
/// with `context=full` each entry is given once in an answer and named by its id after that, with
/// the error whose context gives it, whichever end the page is filled from (a `before_cursor`
/// read keeps the newest, so the newest error gives them).
#[tokio::test]
async fn full_context_gives_each_entry_once_per_answer() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    server
        .ingest(
            "actions",
            vec![
                json!({"tabId": 1, "ts": t, "type": "navigate", "how": "load", "url": "http://app/"}),
                json!({"tabId": 1, "ts": t + 1_000, "type": "click", "selector": "#buy"}),
            ],
        )
        .await;
    let body = json!({"tabId": 1, "ts": t + 1_010, "method": "POST", "url": "http://app/api/buy", "status": 500, "responseBody": "{\"error\":\"stock service down\"}"});
    server.ingest("network_bodies", vec![body]).await;
    let error = |dt: i64, message: &str| json!({"tabId": 1, "ts": t + dt, "level": "error", "message": message});
    server
        .ingest(
            "logs",
            vec![error(1_100, "checkout failed"), error(1_200, "cart is undefined"), error(1_300, "render aborted")],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    for (args, full_at) in [
        (json!({"what": "errors", "context": "full"}), 0),
        (json!({"what": "errors", "context": "full", "before_cursor": 4}), 2),
    ] {
        let answer = within_budget(&mcp, args.clone()).await;
        let list = entries(&answer);
        assert_eq!(list.len(), 3, "{answer}");
        let first = list[full_at]["id"].clone();
        let given = &list[full_at]["context"];
        assert_eq!(given["network_bodies"][0]["status"], 500, "{args}: {answer}");
        assert_eq!(given["action"]["selector"], "#buy", "{args}: {answer}");
        assert_eq!(given["navigation"]["how"], "load", "{args}: {answer}");
        for (i, entry) in list.iter().enumerate().filter(|(i, _)| *i != full_at) {
            assert_eq!(
                entry["context"],
                json!({
                    "network_bodies": [{"id": 1, "in_context_of_error": first}],
                    "action": {"id": 2, "in_context_of_error": first},
                    "navigation": {"id": 1, "in_context_of_error": first},
                }),
                "{args}: entry {i} of {answer}"
            );
        }
    }
    // A drill-down by ids may pass over an entry too large and give the next: each is whole.
    let drill = within_budget(&mcp, json!({"what": "errors", "context": "full", "ids": [2, 3]})).await;
    for entry in entries(&drill) {
        assert_eq!(entry["context"]["network_bodies"][0]["status"], 500, "{drill}");
    }
}

/// A request that failed after the error is not why it happened: a stream the browser cut as the
/// page was left (a reload after the next save), or a request that began before the error and was
/// seen to end, failed, seconds after it. One that ended at the error's moment is named.
#[tokio::test]
async fn an_error_s_context_leaves_out_requests_that_failed_after_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    server
        .ingest("actions", vec![json!({"tabId": 1, "ts": t, "type": "navigate", "how": "load", "url": "http://app/"})])
        .await;
    let row = |dt: i64, path: &str, duration: f64, extra: serde_json::Value| {
        let mut row = json!({"tabId": 1, "ts": t + dt, "url": format!("http://app{path}"), "initiatorType": "fetch",
            "method": "GET", "duration": duration, "source": "page"});
        row.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        row
    };
    server
        .ingest(
            "network_waterfall",
            vec![
                // Failed just before the error: the error's cause.
                row(1_000, "/api/cart", 990.0, json!({"failed": true, "error": "TypeError: Failed to fetch"})),
                // Began before the error, cut with its page 8 s later.
                row(
                    1_100,
                    "/events",
                    9_000.0,
                    json!({"failed": true, "error": "canceled as the page was left: net::ERR_ABORTED"}),
                ),
                // Began before the error, answered 502 five seconds after it.
                row(1_200, "/api/slow", 5_800.0, json!({"responseStatus": 502})),
                // Ended as the error was logged, within the clocks' drift.
                row(1_300, "/api/rate", 800.0, json!({"responseStatus": 500})),
            ],
        )
        .await;
    server
        .ingest("logs", vec![json!({"tabId": 1, "ts": t + 2_000, "level": "error", "message": "cart is null"})])
        .await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    assert_eq!(entries(&errors)[0]["context"], json!({"network_waterfall": [1, 4], "navigation": 1}), "{errors}");
}

/// A build error came of a file saved, not of what the page did: its context names no click and
/// no request, however close.
#[tokio::test]
async fn a_build_error_s_context_is_empty() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    server
        .ingest("actions", vec![json!({"tabId": 1, "ts": t + 1_000, "type": "click", "selector": "#greeting"})])
        .await;
    server
        .ingest(
            "network_waterfall",
            vec![json!({"tabId": 1, "ts": t + 1_100, "url": "http://app/api/x", "responseStatus": 500})],
        )
        .await;
    server
        .ingest(
            "logs",
            vec![
                json!({"tabId": 1, "ts": t + 2_000, "level": "error", "source": "dev-server", "message": "[rsbuild] × Module build failed"}),
                json!({"tabId": 1, "ts": t + 2_000, "level": "error", "source": "console", "message": "cart is null"}),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    assert_eq!(entries(&errors)[0]["context"], json!({}), "{errors}");
    assert_eq!(entries(&errors)[1]["context"], json!({"network_waterfall": [1], "action": 1}), "{errors}");
}

/// An error's context is its own page's: a request that failed on the page before the last load
/// or reload is not why it happened, however close in time.
#[tokio::test]
async fn an_error_s_context_stays_within_its_page_load() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let nav =
        |dt: i64, how: &str| json!({"tabId": 1, "ts": t + dt, "type": "navigate", "how": how, "url": "http://app/"});
    server.ingest("actions", vec![nav(0, "load"), nav(1_000, "reload")]).await;
    let failed = |dt: i64, path: &str| json!({"tabId": 1, "ts": t + dt, "method": "GET", "url": format!("http://app{path}"), "status": 500});
    server
        .ingest("network_bodies", vec![failed(500, "/before"), failed(1_000, "/head"), failed(1_200, "/after")])
        .await;
    server.ingest("logs", vec![json!({"tabId": 1, "ts": t + 2_000, "level": "error", "message": "boom"})]).await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    assert_eq!(entries(&errors)[0]["context"], json!({"network_bodies": [2, 3], "navigation": 2}), "{errors}");
}

/// In a single-page app (htmx, Turbo, a router) a route change starts the page's visit too: a
/// request that failed on the route before is not why an error on this one happened; a query
/// written back with replaceState keeps the visit going, and the context names the route change
/// the visit began with. A query the page pushes is a route of its own: Storybook's manager goes
/// from story to story by pushState of `?path=/story/…` (tab 2).
#[tokio::test]
async fn an_error_s_context_stays_within_its_route() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let nav = |tab: i64, dt: i64, how: &str, url: &str| json!({"tabId": tab, "ts": t + dt, "type": "navigate", "how": how, "url": url});
    server
        .ingest(
            "actions",
            vec![
                nav(1, 0, "load", "http://app/"),
                nav(1, 1_000, "pushState", "http://app/contacts"),
                nav(1, 2_000, "pushState", "http://app/settings"),
                nav(1, 2_500, "replaceState", "http://app/settings?tab=2"),
                nav(1, 2_600, "pushState", "http://app/settings?tab=2#theme"),
                nav(2, 0, "load", "http://sb/?path=/story/orders--unknown"),
                nav(2, 1_000, "pushState", "http://sb/?path=/story/auth--login"),
                nav(2, 1_100, "replaceState", "http://sb/?path=/story/auth--login&args=name:Bob"),
            ],
        )
        .await;
    let failed = |tab: i64, dt: i64, path: &str| json!({"tabId": tab, "ts": t + dt, "method": "POST", "url": format!("http://app{path}"), "status": 422});
    server
        .ingest(
            "network_bodies",
            vec![failed(1, 1_500, "/contacts"), failed(1, 2_300, "/settings/save"), failed(2, 500, "/stats")],
        )
        .await;
    let boom =
        |tab: i64| json!({"tabId": tab, "ts": t + 3_000, "level": "error", "message": format!("boom in tab {tab}")});
    server.ingest("logs", vec![boom(1), boom(2)]).await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    // The navigation named is the one the visit began with, not the query written back since.
    assert_eq!(entries(&errors)[0]["context"], json!({"network_bodies": [2], "navigation": 3}), "{errors}");
    // The story before's failed request is not why; the story switch is where the visit began.
    assert_eq!(entries(&errors)[1]["context"], json!({"navigation": 7}), "{errors}");
    let since = within_budget(&mcp, json!({"what": "logs", "tabId": 2, "since_navigation": true})).await;
    assert_eq!(since["navigation"]["soft_navigations"]["count"], 1, "{since}");
    assert_eq!(since["navigation"]["soft_navigations"]["url"], "http://sb/?path=/story/auth--login", "{since}");
}

/// A data router (React Router, Remix, Next) fetches the next route's data before it writes the URL:
/// the click, the loader's request that failed and the route change are one span, and the error the
/// route then throws has the failed request and the click in its context. A request that failed
/// before the click is still not why.
#[tokio::test]
async fn an_error_after_a_route_change_has_the_request_that_led_to_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let nav =
        |dt: i64, how: &str, url: &str| json!({"tabId": 1, "ts": t + dt, "type": "navigate", "how": how, "url": url});
    server
        .ingest(
            "actions",
            vec![
                nav(0, "load", "http://app/"),
                json!({"tabId": 1, "ts": t + 1_726, "type": "click", "selector": "a[href=\"/profile\"]", "url": "http://app/"}),
                nav(1_782, "pushState", "http://app/profile"),
            ],
        )
        .await;
    let row = |dt: i64, path: &str, status: i64| json!({"tabId": 1, "ts": t + dt, "method": "GET", "url": format!("http://app{path}"), "responseStatus": status, "source": "page"});
    server.ingest("network_waterfall", vec![row(1_200, "/home.data", 500), row(1_738, "/profile.data", 503)]).await;
    server
        .ingest(
            "logs",
            vec![json!({"tabId": 1, "ts": t + 1_800, "level": "error", "message": "TypeError: user is null"})],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    assert_eq!(
        entries(&errors)[0]["context"],
        json!({"network_waterfall": [2], "action": 2, "navigation": 3}),
        "{errors}"
    );
}

/// The browser's Back button is no action of the page's: an error after it (htmx restoring the
/// page before) has neither the click before it nor that click's failed request in its context,
/// only the step back. A Back link of the page's own, clicked, leads to its step at once and is its cause.
#[tokio::test]
async fn an_error_after_the_back_button_is_not_blamed_on_the_click_before_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let nav =
        |dt: i64, how: &str, url: &str| json!({"tabId": 1, "ts": t + dt, "type": "navigate", "how": how, "url": url});
    let click =
        |dt: i64, id: &str| json!({"tabId": 1, "ts": t + dt, "type": "click", "selector": id, "url": "http://app/"});
    server
        .ingest(
            "actions",
            vec![
                nav(0, "load", "http://app/orders?page=2"),
                nav(1_000, "pushState", "http://app/orders?page=3"),
                click(2_000, "#load-report"),
                nav(4_000, "popstate", "http://app/orders?page=2"),
                click(8_000, "#back-link"),
                nav(8_030, "popstate", "http://app/orders?page=1"),
            ],
        )
        .await;
    let row = |dt: i64, path: &str| json!({"tabId": 1, "ts": t + dt, "method": "GET", "url": format!("http://app{path}"), "responseStatus": 500, "source": "page"});
    server.ingest("network_waterfall", vec![row(2_010, "/fragments/report")]).await;
    let log = |dt: i64, message: &str| json!({"tabId": 1, "ts": t + dt, "level": "error", "message": message});
    server.ingest("logs", vec![log(4_050, "TypeError: after back"), log(8_050, "TypeError: after back link")]).await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    let contexts: Vec<(Value, Value)> =
        entries(&errors).iter().map(|e| (e["message"].clone(), e["context"].clone())).collect();
    assert_eq!(
        contexts,
        [
            (json!("TypeError: after back"), json!({"navigation": 4})),
            (json!("TypeError: after back link"), json!({"action": 5, "navigation": 6})),
        ],
        "{errors}"
    );
}

#[tokio::test]
async fn since_navigation_returns_what_followed_the_tabs_last_load_or_reload() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let log = |tab: i64, dt: i64, m: &str| json!({"tabId": tab, "ts": t + dt, "level": "log", "message": m});
    server.ingest("logs", vec![log(1, 0, "before"), log(1, 500, "still before"), log(2, 9_000, "other tab")]).await;
    server
        .ingest(
            "actions",
            vec![
                json!({"tabId": 1, "ts": t + 100, "type": "navigate", "how": "load", "url": "http://app/a"}),
                json!({"tabId": 1, "ts": t + 1_000, "type": "navigate", "how": "reload", "url": "http://app/b"}),
                json!({"tabId": 1, "ts": t + 2_000, "type": "navigate", "how": "pushState", "url": "http://app/c"}),
                json!({"tabId": 2, "ts": t + 8_000, "type": "navigate", "how": "reload", "url": "http://app/z"}),
                // An iframe of the page loading (its entries carry frameId): not a load of the page.
                json!({"tabId": 1, "ts": t + 3_000, "type": "navigate", "how": "load", "url": "about:srcdoc", "frameId": 5}),
                // A router writing back the route it is on (SvelteKit at start-up), a query or an
                // in-page anchor: the page stays where it is, no route change.
                json!({"tabId": 1, "ts": t + 1_010, "type": "navigate", "how": "replaceState", "url": "http://app/b"}),
                json!({"tabId": 1, "ts": t + 2_100, "type": "navigate", "how": "replaceState", "url": "http://app/c?tab=2"}),
                json!({"tabId": 1, "ts": t + 2_200, "type": "navigate", "how": "pushState", "url": "http://app/c?tab=2#top"}),
            ],
        )
        .await;
    // Logs arrive in their own batch, after the navigation was stored. One the page before logged
    // as it was left (its stream cut off) comes after the reload began: its document says whose.
    let mut left = log(1, 1_005, "as the page before was left");
    left["docStart"] = json!(t + 100);
    let mut own = log(1, 2_600, "leaving this page");
    own["docStart"] = json!(t + 1_000);
    server
        .ingest(
            "logs",
            vec![
                log(1, 1_000, "after reload"),
                left,
                log(1, 2_500, "after pushState"),
                own,
                log(1, 3_500, "after frame"),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;

    let since = within_budget(&mcp, json!({"what": "logs", "tabId": 1, "since_navigation": true})).await;
    let messages: Vec<&str> =
        since["entries"].as_array().unwrap().iter().map(|e| e["message"].as_str().unwrap()).collect();
    assert_eq!(messages, vec!["after reload", "after pushState", "leaving this page", "after frame"]);
    assert_eq!(since["navigation"]["id"], 2);
    assert_eq!(since["navigation"]["url"], "http://app/b");
    assert_eq!(since["navigation"]["ts"], t + 1_000);
    // The page's own route change since (not a load): counted, the latest named.
    assert_eq!(
        since["navigation"]["soft_navigations"],
        json!({"count": 1, "url": "http://app/c", "how": "pushState", "ts": t + 2_000}),
        "{since}"
    );
    // The tracked tab is used when no tabId is given.
    mcp.ok("configure", json!({"action": "track_tab", "tabId": 1})).await;
    // Leaving tabId out is a mistake, not "stop tracking" (that is tabId: null).
    let missing = mcp.err("configure", json!({"action": "track_tab"})).await;
    assert!(missing.contains("track_tab needs `tabId`"), "{missing}");
    let tracked = within_budget(&mcp, json!({"what": "actions", "since_navigation": true})).await;
    assert_eq!(ids(&tracked), vec![2, 3, 5, 6, 7, 8]);
    let summary = within_budget(&mcp, json!({"what": "summary", "since_navigation": true})).await;
    assert_eq!(summary["kinds"]["logs"]["count"], 4);
    // compare without a mark: the page's last two loads, not the iframe's.
    let c = mcp.observe(json!({"what": "compare", "tabId": 1})).await;
    assert_eq!((c["before"]["from"]["load"].as_i64(), c["after"]["from"]["load"].as_i64()), (Some(1), Some(2)), "{c}");
}

#[tokio::test]
async fn bad_arguments_say_what_to_send_instead() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    server.ingest("logs", flood(5, 1)).await;
    // A second tab: since_navigation cannot take the only tab seen, and no page load is recorded.
    server.ingest("logs", flood(1, 2)).await;
    let mcp = Mcp::stdio(&db.path, server.port).await;
    let cases = [
        (json!({"what": "logs", "fields": ["messsage"]}), "unknown field \"messsage\""),
        (json!({"what": "logs", "id": 1, "offset": 0}), "cannot be combined with offset"),
        (json!({"what": "logs", "ids": (1..=51).collect::<Vec<i64>>()}), "at most 50"),
        (json!({"what": "logs", "since_navigation": true}), "since_navigation needs a tab with a page load"),
        (json!({"what": "logs", "tabId": 1, "since_navigation": true}), "no load or reload of tab 1"),
        (json!({"what": "logs", "max_tokens": 100}), "max_tokens must be between 500 and 100000"),
        (json!({"what": "logs", "max_tokens": 100_001}), "max_tokens must be between"),
        (json!({"what": "errors", "min_level": "warn"}), "every error is level error"),
        (json!({"what": "logs", "context": "full"}), "applies to errors"),
    ];
    for (args, expected) in cases {
        let message = mcp.err("observe", args.clone()).await;
        assert!(message.contains(expected), "{args}: {message}");
    }
    // The agent's own text is repeated in an error cut short, whatever it sent.
    let long = "é".repeat(100_000);
    for args in [
        json!({"what": long}),
        json!({"what": "logs", "fields": [long]}),
        json!({"what": "logs", "min_level": long}),
        json!({"what": "logs", long.clone(): 1}),
    ] {
        let message = mcp.err("observe", args).await;
        assert!(message.chars().count() < 2_000, "{} characters: {}", message.chars().count(), &message[..200]);
        assert!(message.contains("éééé…"), "{}", &message[..200]);
    }
    mcp.close().await;
}

/// What entries share goes into `common` once, but a `common` is never what breaks the
/// budget: four copies of one error with an 80-frame stack, five logs with the same 16,000
/// control characters, errors sharing a 500-character message. Each answer fits its
/// max_tokens and max_chars by a real tokenizer and shows at least one entry.
#[tokio::test]
async fn entries_that_share_a_large_value_still_fit_the_budget() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let stack: String = (0..80)
        .map(|i| {
            format!("    at frame{i} (http://localhost:5173/src/components/VeryLongComponentName{i}.tsx:{i}:17)\n")
        })
        .collect();
    let same_error = |ts: i64| json!({"tabId": 400, "ts": ts, "level": "error", "source": "exception", "message": "TypeError: x is undefined", "stack": stack});
    server.ingest("logs", (0..4).map(|i| same_error(1_700_000_000_000 + i)).collect()).await;
    let controls: String = "\u{1}\u{2}\u{7}".repeat(5_400);
    server
        .ingest("logs", (0..5).map(|i| json!({"tabId": 200, "ts": 1_700_000_000_100i64 + i, "level": "log", "message": "m", "args": [controls]})).collect())
        .await;
    let long_message = format!("Error: {}", "the same long failure ".repeat(24));
    server
        .ingest("logs", (0..5).map(|i| json!({"tabId": 300, "ts": 1_700_000_000_200i64 + i, "level": "error", "message": long_message})).collect())
        .await;
    let mcp = Mcp::http(&server).await;
    for args in [
        json!({"what": "logs", "tabId": 400, "fields": ["message", "stack"], "max_tokens": 2_000}),
        json!({"what": "errors", "tabId": 400, "fields": ["stack"], "max_tokens": 1_000}),
        json!({"what": "logs", "tabId": 200, "fields": ["args"], "max_tokens": 500}),
        json!({"what": "errors", "tabId": 300, "max_tokens": 500, "max_chars": 1_000}),
    ] {
        let answer = within_budget(&mcp, args.clone()).await;
        assert!(answer["count"].as_u64().is_some_and(|n| n >= 1), "{args}: {answer}");
        if args["tabId"] == 200 {
            // 16,000 control characters are 96,000 characters of JSON: cut, and it says so.
            assert_eq!(answer["truncated"], true, "{args}: {answer}");
        }
    }
    // The viewer's link carries the agent's filters: one too long to be a link is left out.
    let linked = within_budget(&mcp, json!({"what": "logs", "tabId": 400, "max_tokens": 500})).await;
    assert!(linked["viewer"].as_str().is_some_and(|l| l.contains("tab=400")), "{linked}");
    let long =
        within_budget(&mcp, json!({"what": "network_waterfall", "url": "é".repeat(10_000), "max_tokens": 500})).await;
    assert!(long.get("viewer").is_none(), "{long}");
    // Where the shared value fits, it is said once and every entry is shown.
    let all =
        within_budget(&mcp, json!({"what": "logs", "tabId": 400, "fields": ["message", "stack"], "max_tokens": 8_000}))
            .await;
    assert_eq!(all["count"], 4, "{all}");
    assert!(all["common"]["stack"].is_string(), "{all}");
    mcp.close().await;
}

/// A page whose URL runs to the field cap (its state in the query string): the answers that
/// name its page load (since_navigation, summary, compare) cut the URL and fit their budget,
/// and a page read through since_navigation still shows the entry it has, so that following
/// its cursor skips nothing.
#[tokio::test]
async fn a_page_load_with_a_12_kb_url_keeps_every_answer_within_budget() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mut rng = Rng::new(11);
    let state: String = (0..12_000)
        .map(|_| {
            char::from(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[rng.range(0, 64) as usize])
        })
        .collect();
    let url = format!("http://localhost:5173/app?state={state}");
    let now = 1_732_380_000_000i64;
    server
        .ingest(
            "actions",
            vec![
                json!({"tabId": 50, "ts": now - 5_000, "type": "navigate", "how": "load", "url": url}),
                json!({"tabId": 50, "ts": now - 1_000, "type": "navigate", "how": "reload", "url": url}),
            ],
        )
        .await;
    assert_eq!(server.post("vitals", &json!({"tabId": 50, "url": url, "lcp": 1000.0})).await.0, 200);
    assert_eq!(server.post("vitals", &json!({"tabId": 50, "url": format!("{url}&x=1"), "lcp": 900.0})).await.0, 200);
    let (first, _) =
        server.ingest("logs", vec![json!({"tabId": 50, "ts": now - 500, "level": "error", "message": "bang"})]).await;
    let mcp = Mcp::http(&server).await;

    let since = within_budget(&mcp, json!({"what": "logs", "tabId": 50, "since_navigation": true})).await;
    assert_eq!(ids(&since), vec![first], "{since}");
    assert_eq!(since["cursor"], first, "the cursor is the entry shown: {since}");
    assert!(since["navigation"]["url"].as_str().unwrap().contains("(+"), "the URL says it was cut");
    for budget in [json!({}), json!({"max_tokens": 500}), json!({"max_chars": 1_000})] {
        within_budget(&mcp, with(json!({"what": "summary", "tabId": 50, "since_navigation": true}), &budget)).await;
        // compare's frame alone (both windows, every list's count) may not fit the smallest
        // budgets: then it says so, and never answers past the budget.
        let args = with(json!({"what": "compare", "tabId": 50}), &budget);
        let result = mcp.call("observe", args.clone()).await;
        let text = text_of(&result);
        if result.is_error == Some(true) {
            assert!(budget != json!({}) && text.contains("does not fit"), "{args}: {text}");
        } else {
            within_budget(&mcp, args).await;
        }
    }
    // A small budget still carries a small entry whole, not clipped to nothing.
    let small = within_budget(&mcp, json!({"what": "logs", "tabId": 50, "max_tokens": 500})).await;
    assert_eq!(entries(&small)[0]["message"], "bang", "{small}");
}

/// Text that tokenizes far worse than it looks (letters under stacks of combining marks,
/// supplementary-plane CJK between letters, Latin Extended mixed with ASCII) in every kind's
/// fields: every answer still fits `max_tokens` by cl100k, listed, drilled into and in full.
#[tokio::test]
async fn text_that_tokenizes_badly_still_fits_max_tokens() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mut rng = Rng::new(23);
    let mut hostile = |n: usize, shape: usize| -> String {
        (0..n)
            .map(|i| match shape {
                0 if i % 9 == 0 => 'a',
                0 => char::from_u32(0x300 + rng.range(0, 0x70) as u32).unwrap_or('x'),
                1 if i % 2 == 0 => char::from(b'a' + (i % 26) as u8),
                1 => char::from_u32(0x20000 + rng.range(0, 0x2000) as u32).unwrap_or('x'),
                _ if rng.range(0, 2) == 0 => char::from(b'a' + rng.range(0, 26) as u8),
                _ => char::from_u32(0x100 + rng.range(0, 0x80) as u32).unwrap_or('x'),
            })
            .collect()
    };
    let texts: Vec<String> = (0..30).map(|i| hostile(2_000 + 300 * (i % 5), i % 3)).collect();
    server
        .ingest("logs", texts.iter().map(|t| json!({"tabId": 3, "level": "error", "message": t, "stack": t})).collect())
        .await;
    server
        .ingest(
            "websocket_events",
            texts
                .iter()
                .map(|t| json!({"tabId": 3, "connectionId": "c1", "event": "message", "direction": "incoming", "url": "ws://localhost:5173/ws", "data": t}))
                .collect(),
        )
        .await;
    server
        .ingest(
            "network_bodies",
            texts
                .iter()
                .map(|t| json!({"tabId": 3, "method": "GET", "url": format!("http://localhost:5173/{}", t.chars().take(100).collect::<String>()), "status": 200, "responseBody": t}))
                .collect(),
        )
        .await;
    let mcp = Mcp::http(&server).await;
    for what in ["logs", "errors", "websocket_events", "network_bodies", "summary"] {
        for budget in [json!({}), json!({"max_tokens": 2_000}), json!({"max_tokens": 25_000, "max_chars": 200_000})] {
            within_budget(&mcp, with(json!({"what": what}), &budget)).await;
            if what != "summary" {
                let all = within_budget(&mcp, with(json!({"what": what, "fields": ["all"]}), &budget)).await;
                let first = ids(&all)[0];
                within_budget(&mcp, with(json!({"what": what, "id": first}), &budget)).await;
            }
        }
    }
}

/// A drill-down naming fields gives them as the page gave them: one large field (a response body)
/// read whole and as sent, not cut at 500 characters or rewritten as a JavaScript literal.
#[tokio::test]
async fn a_drill_down_by_field_gives_the_field_as_sent() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body = serde_json::to_string(
        &json!({"items": (0..200).map(|i| json!({"id": i, "name": format!("item {i}")})).collect::<Vec<_>>()}),
    )
    .unwrap();
    assert!(body.len() > 3_000);
    let (id, _) = server
        .ingest("network_bodies", vec![json!({"tabId": 1, "method": "GET", "url": "http://app/api/items", "status": 200, "responseBody": body, "duration": 12.345_678})])
        .await;
    let mcp = Mcp::http(&server).await;
    let drilled =
        within_budget(&mcp, json!({"what": "network_bodies", "ids": [id], "fields": ["responseBody", "duration"]}))
            .await;
    assert_eq!(entries(&drilled)[0]["responseBody"], json!(body), "{drilled}");
    assert_eq!(entries(&drilled)[0]["duration"], json!(12.345_678), "as stored, not rounded");
}

/// A listing naming a body among its fields gives it as the API sent it (cut at 500 characters), not
/// rewritten as a JavaScript literal, which only a logged message is.
#[tokio::test]
async fn a_listed_body_is_the_json_the_api_sent() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body = r#"{"error":"StatsService unavailable","code":"E_STATS_DOWN"}"#;
    server
        .ingest("network_bodies", vec![json!({"tabId": 1, "method": "GET", "url": "http://app/api/stats", "status": 500, "responseBody": body})])
        .await;
    server.ingest("logs", vec![json!({"tabId": 1, "level": "log", "message": r#"state {"a":1}"#})]).await;
    let mcp = Mcp::http(&server).await;
    let listed = within_budget(&mcp, json!({"what": "network_bodies", "fields": ["url", "responseBody"]})).await;
    assert_eq!(entries(&listed)[0]["responseBody"], json!(body), "{listed}");
    let logs = within_budget(&mcp, json!({"what": "logs"})).await;
    assert_eq!(entries(&logs)[0]["message"], json!("state {a:1}"), "{logs}");
}

/// The summary's failed list keeps what the page's code asked for above the dev server's module
/// reloads that fail after each broken save: these come later and would push the API call off.
/// What the browser canceled as the page was left comes last.
#[tokio::test]
async fn the_summary_keeps_a_failed_call_of_the_page_s_code_above_later_module_reloads() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let call = json!({"tabId": 1, "method": "GET", "url": "http://localhost:4321/api/items.json", "responseStatus": 500,
                      "initiatorType": "fetch", "location": "http://localhost:4321/src/components/Counter.tsx:21:23",
                      "pageUrl": "http://localhost:4321/"});
    server.ingest("network_waterfall", vec![call]).await;
    let reload = |i: usize| {
        json!({"tabId": 1, "url": format!("http://localhost:4321/src/components/Counter.tsx?t={i}"),
                                   "initiatorType": "script", "responseStatus": 500})
    };
    server.ingest("network_waterfall", (0..7).map(reload).collect()).await;
    // A stream the browser canceled as a reload began, made by the page's code too, newest of all.
    let left = json!({"tabId": 1, "method": "GET", "url": "http://localhost:4321/api/events", "initiatorType": "eventsource",
                      "failed": true, "error": "canceled as the page was left: EventSource connection failed",
                      "location": "http://localhost:4321/src/components/Ticker.tsx:5:18", "pageUrl": "http://localhost:4321/"});
    server.ingest("network_waterfall", vec![left]).await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let failed = summary["network_waterfall"]["failed"].as_array().cloned().unwrap_or_default();
    assert_eq!(failed.len(), 5, "{summary}");
    assert_eq!(failed[0]["url"], "http://localhost:4321/api/items.json", "{summary}");
    assert_eq!(failed[0]["at"], "http://localhost:4321/src/components/Counter.tsx:21:23", "{summary}");
    // Then the reloads, the latest first.
    assert_eq!(failed[1]["url"], "http://localhost:4321/src/components/Counter.tsx?t=6", "{summary}");
    assert_eq!(summary["network_waterfall"]["failed_not_shown"], 4, "the canceled stream last, left out: {summary}");
}

/// A build error the dev server reported ranks first among the summary's error groups, above a
/// crash and above errors the app logged more often: until it is fixed the page runs old code.
#[tokio::test]
async fn the_summary_ranks_a_build_error_above_crashes_and_frequent_logged_errors() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let logged = |i: usize| json!({"tabId": 1, "level": "error", "source": "console", "message": format!("Reports: load failed {i}")});
    let mut entries: Vec<Value> = (0..6).map(logged).collect();
    entries.push(json!({"tabId": 1, "level": "error", "source": "exception", "message": "TypeError: x is undefined"}));
    entries.push(json!({"tabId": 1, "level": "error", "source": "dev-server",
                        "message": "[vite] Transform failed: Unexpected token (src/components/Noisy.tsx:12:18)"}));
    server.ingest("logs", entries).await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let groups = summary["errors"]["groups"].as_array().cloned().unwrap_or_default();
    let examples: Vec<&str> = groups.iter().filter_map(|g| g["example"].as_str()).collect();
    assert_eq!(examples.len(), 3, "{summary}");
    assert!(examples[0].starts_with("[vite] Transform failed"), "{examples:?}");
    assert_eq!(examples[1], "TypeError: x is undefined", "{examples:?}");
    assert!(examples[2].starts_with("Reports: load failed"), "{examples:?}");
}

/// What the browser hid of another origin's script ("Script error.", thrown 29 times by a widget
/// loaded without CORS) ranks after the app's one crash and its logged error: it says nothing but
/// how to see it.
#[tokio::test]
async fn a_hidden_cross_origin_error_ranks_after_the_errors_that_say_something() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let muted = json!({"tabId": 1, "level": "error", "source": "exception",
                       "message": "Script error. (the browser hides what a script of another origin threw)"});
    let mut entries: Vec<Value> = vec![muted; 29];
    entries
        .push(json!({"tabId": 1, "level": "error", "source": "exception", "message": "Error: crash button pressed"}));
    entries.push(json!({"tabId": 1, "level": "error", "source": "console", "message": "orders failed"}));
    server.ingest("logs", entries).await;
    let mcp = Mcp::http(&server).await;
    for args in [json!({"what": "summary"}), json!({"what": "errors", "group": true})] {
        let answer = within_budget(&mcp, args).await;
        let groups = answer["errors"]["groups"].as_array().or(answer["groups"].as_array()).cloned().unwrap_or_default();
        let examples: Vec<&str> = groups.iter().filter_map(|g| g["example"].as_str()).collect();
        assert_eq!(examples.len(), 3, "{answer}");
        assert_eq!(examples[0], "Error: crash button pressed", "{examples:?}");
        assert_eq!(examples[1], "orders failed", "{examples:?}");
        assert!(examples[2].starts_with("Script error."), "{examples:?}");
    }
}

/// A page that answered an error status and then loaded fine (the developer fixed the view and
/// reloaded) says so, and no longer leads the summary; one not loaded again still does.
#[tokio::test]
async fn a_failed_page_loaded_fine_since_says_so_and_no_longer_ranks_first() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let answered = |tab: i64, path: &str| {
        let url = format!("http://localhost:8000{path}");
        json!({"tabId": tab, "ts": t + 1_000, "level": "error", "source": "resource", "tag": "document", "url": url,
            "resourceUrl": url, "message": format!("The page answered 500: {url} (ValueError at {path})")})
    };
    let document = |tab: i64, dt: i64, path: &str, status: i64, extra: Value| {
        let mut row = json!({"tabId": tab, "ts": t + dt, "url": format!("http://localhost:8000{path}"),
            "initiatorType": "navigation", "source": "page", "responseStatus": status});
        row.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        row
    };
    // Tabs 3 and 4: a form's POST answered 500. Tab 3 opened the form again (a GET, which works);
    // tab 4 sent it again and was redirected to the page after it.
    server
        .ingest(
            "network_waterfall",
            vec![
                document(3, 900, "/checkout/", 500, json!({"method": "POST"})),
                document(4, 900, "/pay/", 500, json!({"method": "POST"})),
            ],
        )
        .await;
    server
        .ingest(
            "logs",
            vec![answered(1, "/orders/"), answered(2, "/cart/"), answered(3, "/checkout/"), answered(4, "/pay/")],
        )
        .await;
    server
        .ingest(
            "network_waterfall",
            vec![
                document(1, 5_000, "/orders/", 200, json!({})),
                document(3, 5_000, "/checkout/", 200, json!({})),
                document(4, 5_000, "/paid/", 200, json!({"afterFormPost": "http://localhost:8000/pay/"})),
            ],
        )
        .await;
    server.ingest("logs", vec![json!({"tabId": 1, "ts": t + 6_000, "level": "error", "source": "exception", "message": "TypeError: x is undefined"})]).await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let groups = summary["errors"]["groups"].as_array().cloned().unwrap_or_default();
    let read: Vec<(String, Value)> =
        groups.iter().map(|g| (g["example"].as_str().unwrap_or_default().to_owned(), g["fixed"].clone())).collect();
    assert_eq!(
        read,
        [
            ("The page answered 500: http://localhost:8000/cart/ (ValueError at /cart/)".to_owned(), Value::Null),
            (
                "The page answered 500: http://localhost:8000/checkout/ (ValueError at /checkout/)".to_owned(),
                Value::Null
            ),
            ("TypeError: x is undefined".to_owned(), Value::Null),
            (
                "The page answered 500: http://localhost:8000/orders/ (ValueError at /orders/)".to_owned(),
                json!("the page loaded since")
            ),
            (
                "The page answered 500: http://localhost:8000/pay/ (ValueError at /pay/)".to_owned(),
                json!("the page loaded since")
            ),
        ],
        "{summary}"
    );
}

/// A failed request's summary item says what its server answered (the start of its body, spaces
/// folded), so that a 500's `{"error": …}` takes no second call; an HTML error page's is its
/// `pageText`, not its markup.
#[tokio::test]
async fn a_failed_request_s_summary_item_says_what_its_server_answered() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body = |path: &str, status: i64, extra: Value| {
        let mut entry =
            json!({"tabId": 1, "method": "GET", "url": format!("http://localhost:3000{path}"), "status": status});
        entry.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        entry
    };
    let said = "{\n  \"error\": \"report generation failed\",\n  \"detail\": \"database is locked (SQLITE_BUSY)\", \"code\": \"E_REPORT_DB\"\n}";
    // h3's (Nuxt's) error answer: its message past the start the other fields take.
    let h3 = r#"{"error":true,"url":"http://localhost:3000/api/items/99","statusCode":404,"statusMessage":"Page Not Found","message":"item 99 not found","data":{"id":"99"}}"#;
    server
        .ingest(
            "network_bodies",
            vec![
                body("/api/report", 500, json!({"responseBody": said})),
                body("/api/items", 200, json!({"responseBody": "{\"items\": []}"})),
                body("/api/items/99", 404, json!({"responseBody": h3})),
                body(
                    "/broken",
                    500,
                    json!({"responseBody": "<html><body><h1>Oops</h1></body></html>", "pageText": {"start": "Oops"}}),
                ),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let failed = summary["network_bodies"]["failed"].as_array().cloned().unwrap_or_default();
    let report =
        failed.iter().find(|f| f["url"] == "http://localhost:3000/api/report").unwrap_or_else(|| panic!("{summary}"));
    assert_eq!(
        report["said"], "{ \"error\": \"report generation failed\", \"detail\": \"database is locked (SQLITE_BUS…",
        "{summary}"
    );
    let item =
        failed.iter().find(|f| f["url"] == "http://localhost:3000/api/items/99").unwrap_or_else(|| panic!("{summary}"));
    assert_eq!(item["said"], "message: item 99 not found", "{summary}");
    let page =
        failed.iter().find(|f| f["url"] == "http://localhost:3000/broken").unwrap_or_else(|| panic!("{summary}"));
    assert_eq!(page.get("said"), None, "{summary}");
}

/// The page a person sees comes first among a summary's failed requests: an HTML error page an
/// htmx swap's XHR or a Turbo visit's fetch got (`errorPage`), as a document answered 500, before
/// the images and stylesheets that fail on every load.
#[tokio::test]
async fn an_error_page_a_fetch_got_comes_first_among_failed_requests() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let row = |i: i64, path: &str, status: i64, kind: &str, extra: Value| {
        let mut entry = json!({"tabId": 1, "ts": t + i, "source": "page", "url": format!("http://localhost:3000{path}"),
            "responseStatus": status, "initiatorType": kind});
        entry.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        entry
    };
    let mut rows = Vec::new();
    for i in 0..6 {
        rows.push(row(i * 10, "/img/logo.png", 404, "img", json!({})));
        rows.push(row(i * 10 + 1, "/theme-missing.css", 404, "link", json!({})));
    }
    rows.push(row(100, "/fragments/report", 500, "xmlhttprequest", json!({"method": "GET", "errorPage": true})));
    rows.push(row(110, "/fragments/notes", 422, "xmlhttprequest", json!({"method": "POST"})));
    server.ingest("network_waterfall", rows).await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let failed = summary["network_waterfall"]["failed"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        failed.first().map(|f| f["url"].clone()),
        Some(json!("http://localhost:3000/fragments/report")),
        "{summary}"
    );
}

/// A build error the page said was fixed since (Vite's client logged a hot update after it, Rsbuild's
/// socket said a build succeeded, or the
/// page loaded again, its client connected, and no build error came) says so, and no longer ranks
/// first; one that came again after the page loaded again still does.
#[tokio::test]
async fn a_build_error_fixed_since_says_so_and_no_longer_ranks_first() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let log = |tab: i64, dt: i64, source: &str, level: &str, message: &str| json!({"tabId": tab, "ts": t + dt, "level": level, "source": source, "message": message});
    let broke = |tab: i64, dt: i64, file: &str| {
        log(tab, dt, "dev-server", "error", &format!("[vite] Transform failed: Unexpected token (src/{file}:12:18)"))
    };
    let load = |tab: i64, dt: i64| json!({"tabId": tab, "ts": t + dt, "type": "navigate", "how": "reload", "url": "http://localhost:5173/"});
    server.ingest("actions", vec![load(2, 3_000), load(3, 3_000)]).await;
    // Tab 4, on Rsbuild: its HMR socket said a build succeeded after the error.
    let hmr = |dt: i64, data: &str| {
        json!({"tabId": 4, "ts": t + dt, "transport": "websocket", "connectionId": "c-1", "event": "message",
            "direction": "incoming", "url": "ws://127.0.0.1:3000/rsbuild-hmr?token=x", "data": data})
    };
    server
        .ingest(
            "websocket_events",
            vec![hmr(900, r#"{"type":"errors","data":{"text":["x"]}}"#), hmr(1_500, r#"{"type":"ok"}"#)],
        )
        .await;
    server
        .ingest(
            "logs",
            vec![
                // Tab 1: a hot update applied after the error.
                broke(1, 1_000, "App.tsx"),
                // Tab 1: Storybook's preview could not import the story's module the broken save
                // updated (Vite's ?t= of the update): fixed with the build.
                log(1, 1_200, "unhandledrejection", "error", "TypeError: Failed to fetch dynamically imported module: http://localhost:6006/src/Badge.stories.tsx?t=1732380001100"),
                log(1, 2_000, "console", "debug", "[vite] hot updated: /src/App.tsx"),
                // Tab 2: reloaded, its client connected, no build error since.
                broke(2, 1_000, "Cart.tsx"),
                // Tab 2: the page Vite reloaded while broken failed at its entry's module.
                log(2, 1_100, "resource", "error", "Failed to load script: http://localhost:5173/src/main.ts?t=1732380001050"),
                log(2, 3_050, "console", "debug", "[vite] connected."),
                // Tab 3: reloaded, and the error came again.
                broke(3, 1_000, "Nav.tsx"),
                log(3, 3_050, "console", "debug", "[vite] connected."),
                broke(3, 3_100, "Nav.tsx"),
                log(4, 1_000, "dev-server", "error", "[rsbuild] File: ./src/Menu.tsx:1:1 × Module build failed"),
                // Tab 5, on Parcel: its runtime said the error was resolved.
                log(5, 1_000, "dev-server", "error", "[parcel] @parcel/transformer-js: Expression expected"),
                log(5, 2_000, "console", "log", "[parcel] ✨ Error resolved"),
                // Tab 6: Vite's client logs `hot updated` even for a module it could not import,
                // right after saying so: no fix.
                broke(6, 1_000, "Home.tsx"),
                log(6, 1_005, "console", "error", "[vite] Failed to reload /src/Home.tsx. This could be due to syntax errors or importing non-existent modules. (see errors above)"),
                log(6, 1_005, "console", "debug", "[vite] hot updated: /src/Home.tsx"),
                log(1, 5_000, "exception", "error", "TypeError: x is undefined"),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let groups = summary["errors"]["groups"].as_array().cloned().unwrap_or_default();
    let read: Vec<(String, Value)> = groups
        .iter()
        .map(|g| (g["example"].as_str().unwrap_or_default().chars().take(40).collect(), g["fixed"].clone()))
        .collect();
    assert_eq!(
        read,
        [
            ("[vite] Transform failed: Unexpected toke".to_owned(), Value::Null),
            ("[vite] Transform failed: Unexpected toke".to_owned(), Value::Null),
            ("TypeError: x is undefined".to_owned(), Value::Null),
            ("[vite] Failed to reload /src/Home.tsx. T".to_owned(), Value::Null),
            ("TypeError: Failed to fetch dynamically i".to_owned(), json!("a hot update applied after it")),
        ],
        "{summary}"
    );
    assert!(groups[0]["example"].as_str().unwrap().contains("Nav.tsx"), "{summary}");
    assert_eq!(groups[0]["count"], 2, "{summary}");
    let grouped = within_budget(&mcp, json!({"what": "errors", "group": true})).await;
    assert_eq!(grouped["groups"][4]["fixed"], "a hot update applied after it", "{grouped}");
    let rsbuild = grouped["groups"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["example"].as_str().is_some_and(|e| e.starts_with("[rsbuild]"))));
    assert_eq!(rsbuild.map(|g| g["fixed"].clone()), Some(json!("a build succeeded after it")), "{grouped}");
    let parcel = grouped["groups"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["example"].as_str().is_some_and(|e| e.starts_with("[parcel]"))));
    assert_eq!(parcel.map(|g| g["fixed"].clone()), Some(json!("a build succeeded after it")), "{grouped}");
    let home = grouped["groups"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["example"].as_str().is_some_and(|e| e.contains("src/Home.tsx:12:18"))));
    assert_eq!(home.map(|g| g.get("fixed").cloned()), Some(None), "a failed hot update is no fix: {grouped}");
    // Nor of the client's own line saying the module failed to reload.
    let reload = grouped["groups"].as_array().and_then(|g| {
        g.iter().find(|g| g["example"].as_str().is_some_and(|e| e.starts_with("[vite] Failed to reload")))
    });
    assert_eq!(reload.map(|g| g.get("fixed").cloned()), Some(None), "{grouped}");
    let cart = grouped["groups"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["example"].as_str().is_some_and(|e| e.contains("src/Cart.tsx:12:18"))));
    assert_eq!(cart.map(|g| g["fixed"].clone()), Some(json!("the page loaded again without it")), "{grouped}");
    let entry = grouped["groups"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["example"].as_str().is_some_and(|e| e.starts_with("Failed to load script"))));
    assert_eq!(entry.map(|g| g["fixed"].clone()), Some(json!("the page loaded again without it")), "{grouped}");
}

/// webpack-dev-server's build error is fixed once the socket that said it says a build succeeded
/// (`{"type":"ok"}`, or warnings alone, which a build with standing warnings sends instead), not
/// when another dev server's socket does (a Module Federation remote on its own port), nor when
/// warnings come with errors (`preventReloading`) or are cut short. Metro's, and the
/// `TransformError` Expo's client throws of it, once Metro sends an update; Next's, and its
/// client's copy, once Next says it built without errors.
#[tokio::test]
async fn dev_servers_say_on_their_sockets_when_a_build_error_is_fixed() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    const FILES: [&str; 4] = ["", "cart", "menu", "nav"];
    let errors =
        r#"{"type":"errors","data":[{"moduleName":"./src/util.js","loc":"9:17","message":"Module parse failed"}]}"#;
    let warned = r#"{"type":"warnings","data":[{"moduleName":"./src/index.js","loc":"3:12-19","message":"export 'x' was not found"}]"#;
    let message = |tab: i64, dt: i64, port: u16, data: &str| {
        json!({"tabId": tab, "ts": t + dt, "transport": "websocket", "connectionId": format!("c-{tab}-{port}"), "event": "message",
               "direction": "incoming", "url": format!("ws://127.0.0.1:{port}/ws"), "data": data})
    };
    server
        .ingest(
            "websocket_events",
            vec![
                // Tab 1: its own socket said ok after the error.
                message(1, 990, 8080, errors),
                message(1, 1_400, 8080, r#"{"type":"invalid"}"#),
                message(1, 1_500, 8080, r#"{"type":"ok"}"#),
                // Tab 2: only a remote's dev server said ok; its own, warnings sent with errors.
                message(2, 990, 8080, errors),
                message(2, 1_500, 8081, r#"{"type":"ok"}"#),
                message(2, 1_600, 8080, &format!(r#"{warned},"params":{{"preventReloading":true}}}}"#)),
                // Tab 3: warnings alone, a build that succeeded.
                message(3, 990, 8080, errors),
                message(3, 1_500, 8080, &format!("{warned}}}")),
                // Tab 5, on Next.js: a build without errors after it, on its /_next/hmr socket.
                json!({"tabId": 5, "ts": t + 1_500, "transport": "websocket", "connectionId": "n", "event": "message", "direction": "incoming",
                       "url": "ws://localhost:3000/_next/hmr?id=4PSc45", "data": r#"{"type":"built","hash":"2","errors":[],"warnings":[]}"#}),
                // Tab 4, on Metro: an update after the error, on its /hot socket.
                json!({"tabId": 4, "ts": t + 1_500, "transport": "websocket", "connectionId": "m", "event": "message", "direction": "incoming",
                       "url": "ws://localhost:8081/hot?platform=web", "data": r#"{"type":"update","body":{"revisionId":"a1","isInitialUpdate":false,"added":[],"modified":[],"deleted":[]}}"#}),
            ],
        )
        .await;
    let broke = |tab: i64| {
        json!({"tabId": tab, "ts": t + 1_000, "level": "error", "source": "dev-server",
               "message": format!("[webpack] ERROR in ./src/{}.js 9:17\nModule parse failed", FILES[tab as usize])})
    };
    // Its client logs its own copy of the report, at error level: fixed when the build is, and
    // below what is not fixed.
    let copy = json!({"tabId": 1, "ts": t + 1_001, "level": "error", "source": "console",
                      "message": "[webpack-dev-server] Errors while compiling. Reload prevented."});
    // The module webpack (here Rspack) put in place of the one that did not build, run by a hot
    // update: it throws the build error, here 40 ms after the next build said `ok`.
    let stub = json!({"tabId": 1, "ts": t + 1_540, "level": "error", "source": "unhandledrejection",
                      "message": "Unhandled rejection: Error:   × Module build failed (from ./node_modules/@docusaurus/mdx-loader/lib/index.js):\n  ╰─▶ MDX compilation failed"});
    // Metro's report, and Expo's client throwing it.
    let metro = |source: &str, message: &str| json!({"tabId": 4, "ts": t + 1_000, "level": "error", "source": source, "message": message});
    let metro_said =
        metro("dev-server", "[metro] TransformError: Error: /app/components/Greeting.tsx: Unexpected token (13:17)");
    let thrown = metro("exception", "TransformError: Error: /app/components/Greeting.tsx: Unexpected token (13:17)");
    // Next's report, and its client's copy on the console.
    let next = |source: &str, message: &str| json!({"tabId": 5, "ts": t + 1_000, "level": "error", "source": source, "message": message});
    let next_said = next("dev-server", "[next] ./app/components/Greeting.tsx:13:18\nError: Expression expected");
    let next_copy = next("console", "./app/components/Greeting.tsx:13:18\nError: Expression expected");
    server
        .ingest("logs", vec![broke(1), broke(2), broke(3), copy, stub, metro_said, thrown, next_said, next_copy])
        .await;
    let mcp = Mcp::http(&server).await;
    let grouped = within_budget(&mcp, json!({"what": "errors", "group": true})).await;
    let examples: Vec<&str> = grouped["groups"]
        .as_array()
        .map(|g| g.iter().filter_map(|g| g["example"].as_str()).collect())
        .unwrap_or_default();
    assert!(examples[0].contains("menu.js"), "the one not fixed first: {grouped}");
    let copied = grouped["groups"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["example"].as_str().is_some_and(|e| e.starts_with("[webpack-dev-server]"))));
    assert_eq!(copied.map(|g| g["fixed"].clone()), Some(json!("a build succeeded after it")), "{grouped}");
    for head in [
        "[metro] TransformError",
        "TransformError",
        "[next] ./app",
        "./app/components",
        "Unhandled rejection: Error:   × Module build",
    ] {
        let group = grouped["groups"]
            .as_array()
            .and_then(|g| g.iter().find(|g| g["example"].as_str().is_some_and(|e| e.starts_with(head))));
        assert_eq!(group.map(|g| g["fixed"].clone()), Some(json!("a build succeeded after it")), "{head}: {grouped}");
    }
    let fixed = |tab: i64| {
        grouped["groups"]
            .as_array()
            .and_then(|g| {
                g.iter()
                    .find(|g| g["example"].as_str().is_some_and(|e| e.contains(&format!("{}.js", FILES[tab as usize]))))
            })
            .map(|g| g["fixed"].clone())
    };
    assert_eq!(fixed(1), Some(json!("a build succeeded after it")), "{grouped}");
    assert_eq!(fixed(2), Some(Value::Null), "{grouped}");
    assert_eq!(fixed(3), Some(json!("a build succeeded after it")), "{grouped}");
}

/// One Error logged under several messages is one group: React's "The above error occurred in
/// <PriceBadge>", Storybook's "Error rendering story" and the uncaught error itself carry the same
/// Error (one stack), and took three of the summary's five places; another Error of the same
/// message thrown elsewhere is still its own.
#[tokio::test]
async fn one_error_logged_under_several_messages_is_one_group() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let stack = "Error: formatPrice needs an amount\n    at formatPrice (http://localhost:6006/src/lib/format.ts:3:11)\n    at PriceBadge (http://localhost:6006/src/components/PriceBadge.tsx:10:16)";
    let other = "Error: formatPrice needs an amount\n    at formatPrice (http://localhost:6006/src/lib/format.ts:3:11)\n    at Cart (http://localhost:6006/src/components/Cart.tsx:4:9)";
    let log = |dt: i64, source: &str, message: &str, stack: &str| json!({"tabId": 1, "ts": t + dt, "level": "error", "source": source, "message": message, "stack": stack});
    server
        .ingest(
            "logs",
            vec![
                log(0, "console", "Error: formatPrice needs an amount\n\nThe above error occurred in the <PriceBadge> component.", stack),
                log(1, "console", "Error rendering story 'shop-pricebadge--missing-amount': Error: formatPrice needs an amount", stack),
                log(2, "exception", "Uncaught Error: formatPrice needs an amount", stack),
                log(3, "console", "StockWarning: negative stock is impossible", "Error: negative\n    at StockWarning (http://localhost:6006/src/components/StockWarning.tsx:11:15)"),
                log(4, "exception", "Uncaught Error: formatPrice needs an amount", other),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let grouped = within_budget(&mcp, json!({"what": "errors", "group": true})).await;
    let groups = grouped["groups"].as_array().cloned().unwrap_or_default();
    let read: Vec<(i64, i64, bool)> = groups
        .iter()
        .map(|g| (g["first_id"].as_i64().unwrap_or(0), g["count"].as_i64().unwrap_or(0), g["uncaught"] == true))
        .collect();
    // The three messages of one Error are one group, uncaught; the same message thrown elsewhere
    // joins it by its message, as ever; the warning-like error is its own.
    assert_eq!(read, [(1, 4, true), (4, 1, false)], "{grouped}");
    // compare matches the group by any of its messages: the window after logged only React's.
    mcp.ok("configure", json!({"action": "mark", "name": "before-fix"})).await;
    server
        .ingest(
            "logs",
            vec![log(
                10_000,
                "console",
                "Error: formatPrice needs an amount\n\nThe above error occurred in the <PriceBadge> component.",
                stack,
            )],
        )
        .await;
    let c = mcp.observe(json!({"what": "compare", "tabId": 1, "mark": "before-fix"})).await;
    assert_eq!(c["errors"]["new"]["count"], 0, "{c}");
}

/// A response body the page did not take and whose size it did not know (a chunked binary answer,
/// gRPC-web's) has no size in a compact entry: the note standing in its place is not the body.
#[tokio::test]
async fn a_body_not_taken_of_unknown_size_has_no_size() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body = |note: &str, size: Value| {
        json!({"tabId": 1, "ts": 1_732_380_000_000i64, "method": "POST", "url": "http://app/shop.v1.CartService/Checkout",
               "status": 200, "responseBody": note, "responseBodySize": size})
    };
    server
        .ingest(
            "network_bodies",
            vec![
                body("[application/grpc-web+proto body not captured]", Value::Null),
                body("[application/proto 28 bytes not captured]", json!(28)),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let answer = within_budget(&mcp, json!({"what": "network_bodies"})).await;
    let sizes: Vec<Value> = entries(&answer).iter().map(|e| e.get("size").cloned().unwrap_or(Value::Null)).collect();
    assert_eq!(sizes, [Value::Null, json!(28)], "{answer}");
}

/// A compact EventSource message names its type: the name its server gave it, or `message`.
#[tokio::test]
async fn a_compact_event_source_message_names_its_type() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let message = |event_type: &str| {
        json!({"tabId": 1, "transport": "eventsource", "connectionId": "es-1", "event": "message",
                                             "direction": "incoming", "eventType": event_type, "data": "{}", "url": "http://localhost:5173/api/events"})
    };
    server.ingest("websocket_events", vec![message("tick"), message("message")]).await;
    let mcp = Mcp::http(&server).await;
    let answer = within_budget(&mcp, json!({"what": "websocket_events"})).await;
    let listed = entries(&answer);
    let types: Vec<&str> = listed.iter().filter_map(|e| e["eventType"].as_str()).collect();
    assert_eq!(types, ["tick", "message"], "{answer}");
}

/// The summary at the smallest max_tokens still answers, with counts alone, and a list cut short
/// says how much it left out.
#[tokio::test]
async fn the_summary_answers_at_the_smallest_budget_and_counts_what_it_left_out() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let failed = |i: usize| json!({"tabId": 1, "method": "GET", "url": format!("http://host{}.test/api/{i}", i % 7), "responseStatus": 500});
    server.ingest("network_waterfall", (0..9).map(failed).collect()).await;
    let logs = (0..9).map(
        |i| json!({"tabId": 1, "level": "error", "message": format!("error number {i} of a kind {}", "x".repeat(i))}),
    );
    server.ingest("logs", logs.collect()).await;
    let mcp = Mcp::http(&server).await;
    let whole = within_budget(&mcp, json!({"what": "summary"})).await;
    assert_eq!(whole["network_waterfall"]["failed_count"], 9, "{whole}");
    assert_eq!(whole["network_waterfall"]["failed"].as_array().map(Vec::len), Some(5), "{whole}");
    assert_eq!(whole["network_waterfall"]["failed_not_shown"], 4, "{whole}");
    assert_eq!(whole["network_waterfall"]["hosts_not_shown"], 2, "{whole}");
    let smallest = within_budget(&mcp, json!({"what": "summary", "max_tokens": 500})).await;
    assert_eq!(smallest["kinds"]["network_waterfall"]["count"], 9, "{smallest}");
    assert_eq!(smallest["network_waterfall"]["failed_not_shown"], 9, "{smallest}");
}

/// An error's compact entry says where in the original source (`at`, `frames`) without the raw
/// `location` and `stack` beside them, which name the same lines in the bundle; an error nothing
/// mapped keeps its raw location and stack; a drill-down has every field.
/// A group whose line moved with an edit names the line of its latest entry, and its example is
/// that entry's text: the two say the same version of the code.
#[tokio::test]
async fn a_group_s_example_and_place_are_of_the_same_entry() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let logged = |version: i64, line: i64| {
        json!({"tabId": 1, "level": "warn", "message": format!("Greeting render v{version}"),
               "location": format!("http://localhost:5173/src/Greeting.tsx:{line}:11"),
               "original": {"source": "src/Greeting.tsx", "line": line, "column": 11}})
    };
    server.ingest("logs", vec![logged(1, 9), logged(1, 9), logged(2, 10)]).await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let group = &summary["logs"]["groups"][0];
    assert_eq!(
        (group["count"].clone(), group["example"].clone(), group["at"].clone()),
        (json!(3), json!("Greeting render v2"), json!("src/Greeting.tsx:10:11")),
        "{summary}"
    );
}

#[tokio::test]
async fn a_mapped_error_is_not_told_twice() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let stack = "TypeError: x is undefined\n    at total (http://localhost:5173/assets/i.js:1:900)";
    server
        .ingest(
            "logs",
            vec![
                json!({"tabId": 1, "level": "error", "message": "TypeError: x is undefined", "stack": stack,
                       "location": "http://localhost:5173/assets/i.js:1:900",
                       "original": {"source": "src/Cart.tsx", "line": 11, "column": 39},
                       "frames": [{"at": "http://localhost:5173/assets/i.js:1:900", "fn": "total",
                                   "original": {"source": "src/Cart.tsx", "line": 11, "column": 39}}]}),
                json!({"tabId": 1, "level": "error", "message": "boom", "stack": "Error: boom\n    at http://localhost:5173/x.js:3:1",
                       "location": "http://localhost:5173/x.js:3:1"}),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    let list = entries(&errors);
    assert_eq!(list[0]["at"], "src/Cart.tsx:11:39", "{errors}");
    assert_eq!(list[0]["frames"], "total src/Cart.tsx:11:39", "{errors}");
    assert!(list[0].get("location").is_none() && list[0].get("stack").is_none(), "{errors}");
    assert_eq!(list[1]["location"], "http://localhost:5173/x.js:3:1", "{errors}");
    assert!(list[1]["stack"].as_str().is_some_and(|s| s.contains("x.js:3:1")), "{errors}");
    let whole = within_budget(&mcp, json!({"what": "errors", "id": list[0]["id"]})).await;
    assert_eq!(entries(&whole)[0]["stack"], stack, "{whole}");
}

/// A page the server answered with an error status is an error that carries the error page's text
/// (`pageText`): a dev server's 500 page holds the server's error and stack, which the compact
/// entry shows its start and end of.
#[tokio::test]
async fn a_failed_page_shows_what_its_server_said() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let text = format!(
        "Server Error (500)\nError: loader exploded\n{}    at loader (/app/routes/orders.tsx:5:9)",
        "    at frame (x.js:1:1)\n".repeat(40)
    );
    server
        .ingest(
            "logs",
            vec![json!({"tabId": 1, "level": "error", "source": "resource", "tag": "document",
            "message": "The page answered 500: http://localhost:5173/orders", "pageText": text})],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    let shown = entries(&errors)[0]["pageText"].as_str().unwrap_or_default().to_owned();
    assert!(shown.starts_with("Server Error (500)\nError: loader exploded"), "{errors}");
    assert!(shown.ends_with("at loader (/app/routes/orders.tsx:5:9)"), "{errors}");
    let whole =
        within_budget(&mcp, json!({"what": "errors", "id": entries(&errors)[0]["id"], "fields": ["pageText"]})).await;
    assert_eq!(entries(&whole)[0]["pageText"], json!(text), "{whole}");
}

/// An error group says where its example happened (its original location where a source map gave
/// one), in the summary and in what=errors group=true: where an error is takes no second call.
#[tokio::test]
async fn an_error_group_says_where_it_happened() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mapped = json!({"tabId": 1, "level": "error", "message": "TypeError: x is undefined",
        "location": "http://localhost:5173/assets/index.js:1:900",
        "original": {"source": "src/Cart.tsx", "line": 11, "column": 39}});
    let raw =
        json!({"tabId": 1, "level": "error", "message": "boom", "location": "http://localhost:5173/src/a.js:3:1"});
    let nowhere = json!({"tabId": 1, "level": "error", "message": "The page answered 500"});
    server.ingest("logs", vec![mapped.clone(), mapped, raw, nowhere]).await;
    let mcp = Mcp::http(&server).await;
    let grouped = within_budget(&mcp, json!({"what": "errors", "group": true})).await;
    let at: Vec<Value> = grouped["groups"].as_array().unwrap().iter().map(|g| g["at"].clone()).collect();
    assert_eq!(
        at,
        vec![json!("src/Cart.tsx:11:39"), json!("http://localhost:5173/src/a.js:3:1"), Value::Null],
        "{grouped}"
    );
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    assert_eq!(summary["errors"]["groups"][0]["at"], "src/Cart.tsx:11:39", "{summary}");

    // A group whose first entries ran from a hot update (no map reaches that code, so their `at`
    // is the framework's raw frame) says the page's own line its later entries mapped to.
    let hot = json!({"tabId": 1, "level": "error", "message": "TypeError: reading 'displayName'",
        "location": "http://localhost:4200/@fs/app/.angular/cache/vite/deps/chunk-J.js?v=5:3214:19", "sourcemap": "hot update"});
    let later = json!({"tabId": 1, "level": "error", "message": "TypeError: reading 'displayName'",
        "location": "http://localhost:4200/main.js:40:13", "original": {"source": "src/app/dashboard.html", "line": 2, "column": 13},
        "frames": [{"at": "http://localhost:4200/main.js:40:13", "original": {"source": "src/app/dashboard.html", "line": 2, "column": 13}}]});
    server.ingest("logs", vec![hot.clone(), hot, later.clone(), later]).await;
    let grouped = within_budget(&mcp, json!({"what": "errors", "group": true, "search": "displayName"})).await;
    assert_eq!(grouped["groups"][0]["count"], 4, "{grouped}");
    assert_eq!(grouped["groups"][0]["at"], "src/app/dashboard.html:2:13", "{grouped}");
}

/// An error thrown in a WebSocket's message handler has the message it was handling in its
/// context: the tab's latest incoming one before it. An error thrown elsewhere does not.
#[tokio::test]
async fn an_error_in_a_message_handler_names_the_message() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let message = |dt: i64, data: &str| json!({"tabId": 1, "ts": t + dt, "connectionId": "c1", "event": "message", "direction": "incoming", "data": data});
    let (first, _) = server
        .ingest("websocket_events", vec![message(100, r#"{"type":"user"}"#), message(200, r#"{"type":"system"}"#)])
        .await;
    let error = |dt: i64, frame: &str| {
        json!({"tabId": 1, "ts": t + dt, "level": "error", "source": "exception",
        "message": "TypeError: Cannot read properties of undefined (reading 'name')",
        "stack": format!("TypeError: Cannot read properties of undefined (reading 'name')\n    at describe (http://localhost:5173/src/Feed.vue:9:23)\n    at {frame} (http://localhost:5173/src/Feed.vue:17:20)")})
    };
    // A listener, and an arrow assigned as `es.onmessage = (e) => …` (V8 names it es.onmessage).
    let thrown =
        vec![error(201, "WebSocket.<anonymous>"), error(202, "es.onmessage"), error(300, "HTMLButtonElement.onClick")];
    server.ingest("logs", thrown).await;
    let mcp = Mcp::http(&server).await;
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    let list = entries(&errors);
    assert_eq!(list[0]["context"]["message"], json!(first + 1), "{errors}");
    assert_eq!(list[1]["context"]["message"], json!(first + 1), "{errors}");
    assert!(list[2]["context"].get("message").is_none(), "{errors}");
}

/// Socket.IO calls an event's handlers from its own microtask: the stack has no frame of the
/// socket's, only Socket.IO's `Socket.emitEvent` (`Socket2` once esbuild renamed the class, as a
/// review's bundle had it). The message is the latest incoming frame; over
/// Socket.IO's polling transport, where no socket brought it, the long poll's body that did.
#[tokio::test]
async fn an_error_in_a_socket_io_handler_names_the_message_or_the_poll_that_brought_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let thrown = |tab: i64, dt: i64| {
        json!({"tabId": tab, "ts": t + dt, "level": "error", "source": "unhandledrejection",
        "message": "Unhandled rejection: TypeError: Cannot read properties of null (reading 'toFixed')",
        "stack": "TypeError: Cannot read properties of null (reading 'toFixed')\n    at Socket.<anonymous> (http://localhost:5173/src/app.js:83:83)\n    at Emitter.emit (http://localhost:5173/node_modules/.vite/deps/socket__io-client.js?v=1:690:20)\n    at Socket2.emitEvent (http://localhost:5173/node_modules/.vite/deps/socket__io-client.js?v=1:3386:20)"})
    };
    let (frame, _) = server
        .ingest(
            "websocket_events",
            vec![json!({"tabId": 1, "ts": t + 100, "connectionId": "c1", "event": "message", "direction": "incoming",
                        "data": r#"42["price",{"productId":"3","price":null}]"#})],
        )
        .await;
    let poll = "http://localhost:5173/socket.io/?EIO=4&transport=polling&t=PkX9a";
    let (bodies, _) = server
        .ingest(
            "network_bodies",
            vec![
                json!({"tabId": 2, "ts": t + 90, "method": "GET", "url": poll, "status": 200,
                       "responseBody": r#"42["price",{"productId":"3","price":null}]"#}),
                // A request of the app's after it, which brought no message.
                json!({"tabId": 2, "ts": t + 95, "method": "GET", "url": "http://localhost:5173/api/cart", "status": 200}),
            ],
        )
        .await;
    server.ingest("logs", vec![thrown(1, 111), thrown(2, 111)]).await;
    let mcp = Mcp::http(&server).await;
    let over_socket = within_budget(&mcp, json!({"what": "errors", "tabId": 1})).await;
    assert_eq!(entries(&over_socket)[0]["context"]["message"], json!(frame), "{over_socket}");
    let over_polling = within_budget(&mcp, json!({"what": "errors", "tabId": 2})).await;
    let context = &entries(&over_polling)[0]["context"];
    assert_eq!(context["response"], json!(bodies), "{over_polling}");
    assert!(context.get("message").is_none(), "{over_polling}");
}

/// A body of any shape up to ingest's 64 KiB cap can be read whole at the largest budget: the
/// estimate charges no letter or mark more than a token, as no byte-level tokenizer spends more.
/// One too large for even that budget says how to read it, not to raise what cannot be raised.
#[tokio::test]
async fn a_capped_body_of_any_shape_reads_whole_at_the_largest_budget() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body =
        |text: String| json!({"tabId": 1, "method": "GET", "url": "http://app/x", "status": 200, "responseBody": text});
    let shapes = ["B".repeat(60_000), "-=".repeat(30_000), "QWRTP".repeat(12_000)];
    let (first, _) = server.ingest("network_bodies", shapes.iter().cloned().map(body).collect()).await;
    let mcp = Mcp::http(&server).await;
    for (i, shape) in shapes.iter().enumerate() {
        let args = json!({"what": "network_bodies", "id": first + i as i64, "fields": ["responseBody"],
                          "max_tokens": 100_000, "max_chars": 500_000});
        let answer = within_budget(&mcp, args).await;
        let entry = &entries(&answer)[0];
        assert_eq!(entry.get("_clipped"), None, "{}…", &shape[..5]);
        assert_eq!(entry["responseBody"].as_str(), Some(shape.as_str()));
    }
    // Both bodies of one entry at the cap, in a shape of a token a byte: over the largest budget.
    let both = json!({"tabId": 1, "method": "POST", "url": "http://app/y", "status": 200,
                      "requestBody": "B".repeat(60_000), "responseBody": "B".repeat(60_000)});
    let (id, _) = server.ingest("network_bodies", vec![both]).await;
    let args =
        json!({"what": "network_bodies", "id": id, "fields": ["all"], "max_tokens": 100_000, "max_chars": 500_000});
    let answer = within_budget(&mcp, args).await;
    assert_eq!(entries(&answer)[0]["_clipped"], true, "{}", answer["hint"]);
    let hint = answer["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("max_tokens is at its most") && hint.contains("fields="), "{hint}");
    mcp.close().await;
}

/// At the smallest budget (max_tokens=500), an error still reads as an error: its message and
/// where it happened, beside a lean frame, page after page; never a shell of its id alone, past
/// which a cursor would skip what it said (a budget too small even for that is refused:
/// `budget::tests`).
#[tokio::test]
async fn the_smallest_budget_shows_each_error_and_not_a_shell() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    // As a Svelte app's errors read: the message ends with Svelte's component stack.
    let errors: Vec<Value> = (0..4)
        .map(|i| {
            json!({"tabId": 1, "level": "error", "source": "exception", "url": "http://localhost:5173/cart",
                   "message": format!("Uncaught TypeError: Cannot read properties of undefined (reading 'max{i}')\n\n\tin $effect\n\tin +page.svelte\n\tin +layout.svelte\n\tin root.svelte"),
                   "stack": format!("TypeError: Cannot read properties of undefined (reading 'max{i}')\n    at http://localhost:5173/src/routes/effect/+page.svelte:8:41\n    at update_reaction (http://localhost:5173/node_modules/.vite/deps/chunk-ABC.js?v=1:1:2)"),
                   "location": "http://localhost:5173/src/routes/effect/+page.svelte:8:41",
                   "original": {"source": "src/routes/effect/+page.svelte", "line": 8, "column": 41}})
        })
        .collect();
    server.ingest("logs", errors).await;
    // Failed requests in the same span: the full hint names them, and is long.
    let failed: Vec<Value> = (0..4)
        .map(|i| json!({"tabId": 1, "url": format!("http://localhost:5173/api/item/{i}"), "method": "GET", "responseStatus": 500, "duration": 5}))
        .collect();
    server.ingest("network_waterfall", failed).await;
    let mcp = Mcp::http(&server).await;
    let mut cursor = 0;
    let mut seen = Vec::new();
    loop {
        let page = within_budget(&mcp, json!({"what": "errors", "max_tokens": 500, "after_cursor": cursor})).await;
        for e in entries(&page) {
            assert!(e.get("_omitted_fields").is_none(), "a shell: {page}");
            assert!(e["message"].as_str().is_some_and(|m| m.contains("reading 'max")), "{page}");
            assert_eq!(e["at"], "src/routes/effect/+page.svelte:8:41", "{page}");
            seen.push(e["id"].as_i64().unwrap());
        }
        if !page["has_more"].as_bool().unwrap_or(false) {
            break;
        }
        cursor = page["cursor"].as_i64().unwrap();
    }
    assert_eq!(seen, [1, 2, 3, 4]);
}

/// A summary says, beside each kind's count, how many events the extension said it dropped in the
/// same tabs (its queue full, a page logging faster than it builds): 4,999 lines of a flood of
/// 20,000 are not all the page logged.
#[tokio::test]
async fn a_summary_counts_what_the_extension_dropped_beside_what_it_kept() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let line = |i: i64| json!({"tabId": 1, "ts": t + i, "level": "log", "message": format!("burst line {i}")});
    server.ingest("logs", (0..5).map(line).collect()).await;
    let said = |tab: i64, message: &str| json!({"tabId": tab, "ts": t + 10, "level": "warn", "message": message});
    server
        .ingest(
            "extension_logs",
            vec![
                said(1, "dropped 15004 logs events: the page made events faster than they could be built (5,000 of that kind waiting)"),
                said(1, "dropped 1 logs event: not serialisable"),
                said(1, "dropped 3 network_bodies events: queue full"),
                said(2, "dropped 7 logs events: queue full"),
                said(1, "could not store queued events: QuotaExceededError"),
            ],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary", "tabId": 1})).await;
    assert_eq!(
        summary["kinds"]["logs"],
        json!({"count": 5, "first_id": 1, "last_id": 5, "dropped": 15005}),
        "{summary}"
    );
    assert_eq!(summary["kinds"]["network_bodies"], json!({"count": 0, "dropped": 3}), "{summary}");
    assert_eq!(summary["kinds"]["actions"].get("dropped"), None, "{summary}");
    let all = within_budget(&mcp, json!({"what": "summary"})).await;
    assert_eq!(all["kinds"]["logs"]["dropped"], 15012, "{all}");
}

/// A script that did not parse (an uncaught SyntaxError of no frame, placed in it) is fixed once a
/// page loaded again and fetched it without the error coming back (Vite sends no build error for a
/// plain `.js`); a SyntaxError thrown by running code (JSON.parse at a click) is not told fixed by
/// a load, nor one whose script the new load did not fetch.
#[tokio::test]
async fn a_script_that_did_not_parse_is_fixed_once_loaded_again_without_the_error() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let origin = "http://localhost:5173";
    let thrown = |tab: i64, message: &str, location: &str, stack: &str| {
        json!({"tabId": tab, "ts": t + 1_000, "level": "error", "source": "exception", "message": message,
            "location": format!("{origin}{location}"), "stack": stack, "url": format!("{origin}/")})
    };
    server
        .ingest(
            "logs",
            vec![
                thrown(1, "Uncaught SyntaxError: Unexpected token ';'", "/src/label.js:1:39", "SyntaxError: Unexpected token ';'"),
                thrown(2, "Uncaught SyntaxError: Unexpected end of input", "/src/cart.js:9:1", "SyntaxError: Unexpected end of input"),
                thrown(
                    3,
                    "Uncaught SyntaxError: Unexpected token '<', \"<!doctype \"... is not valid JSON",
                    "/src/api.js:4:20",
                    "SyntaxError: Unexpected token '<'\n    at JSON.parse (<anonymous>)\n    at load (http://localhost:5173/src/api.js:4:20)",
                ),
            ],
        )
        .await;
    let load = |tab: i64| json!({"tabId": tab, "ts": t + 5_000, "type": "navigate", "how": "reload", "url": format!("{origin}/")});
    server.ingest("actions", vec![load(1), load(2), load(3)]).await;
    let script = |tab: i64, path: &str| json!({"tabId": tab, "ts": t + 5_100, "url": format!("{origin}{path}"), "initiatorType": "script", "source": "page", "responseStatus": 200});
    server
        .ingest(
            "network_waterfall",
            vec![script(1, "/src/label.js?t=1732380004000"), script(2, "/src/other.js"), script(3, "/src/api.js")],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let grouped = within_budget(&mcp, json!({"what": "errors", "group": true})).await;
    let fixed: Vec<(String, Value)> = grouped["groups"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|g| (g["example"].as_str().unwrap_or_default().chars().take(45).collect(), g["fixed"].clone()))
        .collect();
    assert_eq!(
        fixed,
        [
            ("Uncaught SyntaxError: Unexpected end of input".to_owned(), Value::Null),
            ("Uncaught SyntaxError: Unexpected token '<', \"".to_owned(), Value::Null),
            ("Uncaught SyntaxError: Unexpected token ';'".to_owned(), json!("the page loaded again without it")),
        ],
        "{grouped}"
    );
}

/// The page's code's failed requests come before its dev server's and markup's in a summary, even
/// with no line of the page's to name (axios starts its XHR from a promise chain, and its call
/// site is library code), and a request the page aborted itself (a route left) after them; a
/// FastAPI 422's `said` is its first validation error's message.
#[tokio::test]
async fn a_summary_lists_the_code_s_failed_requests_first_and_its_aborts_last() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let row = |dt: i64, path: &str, kind: &str, extra: Value| {
        let mut e = json!({"tabId": 1, "ts": t + dt, "source": "page", "url": format!("http://localhost:5173{path}"), "initiatorType": kind});
        e.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        e
    };
    server
        .ingest(
            "network_waterfall",
            vec![
                row(100, "/api/inventory", "xmlhttprequest", json!({"method": "GET", "responseStatus": 503})),
                row(
                    200,
                    "/api/report",
                    "xmlhttprequest",
                    json!({"method": "GET", "failed": true, "error": "aborted (XHR abort())"}),
                ),
                row(300, "/src/components/Banner.tsx?t=1732", "script", json!({"responseStatus": 500})),
                row(400, "/img/logo.png", "img", json!({"responseStatus": 404})),
            ],
        )
        .await;
    let detail = r#"{"detail":[{"type":"int_parsing","loc":["path","item_id"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"abc"}]}"#;
    server
        .ingest(
            "network_bodies",
            vec![json!({"tabId": 1, "ts": t + 500, "method": "GET", "url": "http://localhost:8000/items/abc", "status": 422, "responseBody": detail})],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let order: Vec<&str> = summary["network_waterfall"]["failed"]
        .as_array()
        .map(|f| f.iter().filter_map(|i| i["url"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        order,
        [
            "http://localhost:5173/api/inventory",
            "http://localhost:5173/img/logo.png",
            "http://localhost:5173/src/components/Banner.tsx?t=1732",
            "http://localhost:5173/api/report",
        ],
        "{summary}"
    );
    assert_eq!(
        summary["network_bodies"]["failed"][0]["said"],
        "message: Input should be a valid integer, unable to parse string as an integer",
        "{summary}"
    );
}

/// A request that failed and then succeeded when sent again (a 401 answered by a token refresh and
/// a retry) says so in a summary and ranks after the failures that stood; an error after it does
/// not have it in its context, which the failure that stood is in.
#[tokio::test]
async fn a_failed_request_that_succeeded_when_sent_again_is_no_error_s_context() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let t = 1_732_380_000_000i64;
    let xhr = |dt: i64, method: &str, path: &str, status: i64| {
        json!({"tabId": 1, "ts": t + dt, "source": "page", "initiatorType": "xmlhttprequest", "method": method,
            "url": format!("http://localhost:5173{path}"), "responseStatus": status})
    };
    server
        .ingest(
            "network_waterfall",
            vec![
                xhr(0, "GET", "/api/me", 401),
                xhr(35, "POST", "/api/auth/refresh", 200),
                xhr(91, "GET", "/api/me", 200),
                xhr(200, "GET", "/api/stats", 500),
                // A form refused for what it held, sent again corrected: no retry.
                xhr(300, "POST", "/login.data", 400),
                xhr(400, "POST", "/login.data", 200),
            ],
        )
        .await;
    server
        .ingest(
            "logs",
            vec![json!({"tabId": 1, "ts": t + 500, "level": "error", "source": "exception", "message": "ZodError: price: Expected number"})],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    let summary = within_budget(&mcp, json!({"what": "summary"})).await;
    let failed: Vec<(Value, Value)> = summary["network_waterfall"]["failed"]
        .as_array()
        .map(|f| f.iter().map(|i| (i["url"].clone(), i.get("retried").cloned().unwrap_or(Value::Null))).collect())
        .unwrap_or_default();
    assert_eq!(
        failed,
        [
            (json!("http://localhost:5173/login.data"), Value::Null),
            (json!("http://localhost:5173/api/stats"), Value::Null),
            (json!("http://localhost:5173/api/me"), json!("succeeded when sent again")),
        ],
        "{summary}"
    );
    let errors = within_budget(&mcp, json!({"what": "errors"})).await;
    assert_eq!(entries(&errors)[0]["context"]["network_waterfall"], json!([4, 5]), "{errors}");
}
