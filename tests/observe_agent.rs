//! What an agent diagnosing an app through `observe` alone is told, black-box: the real server
//! fed a page's life over HTTP as the extension sends it, a real MCP client. Each test is a
//! finding of an agent that was misled or told nothing.

mod common;

use common::{Mcp, Server, TempDb, entries};
use serde_json::{Value, json};

const T: i64 = 1_790_000_000_000;
const APP: &str = "http://localhost:5173";

fn load(tab: i64, ts: i64) -> Value {
    json!({"tabId": tab, "ts": ts, "type": "navigate", "how": "load", "url": format!("{APP}/"), "from": Value::Null})
}

fn request(ts: i64, method: &str, url: &str, status: i64) -> Value {
    json!({"tabId": 1, "ts": ts, "url": url, "method": method, "initiatorType": "fetch",
           "responseStatus": status, "duration": 12.5, "source": "page", "type": "fetch"})
}

fn body(ts: i64, method: &str, url: &str, status: i64) -> Value {
    json!({"tabId": 1, "ts": ts, "url": url, "method": method, "status": status,
           "duration": 12.0, "initiator": "fetch", "requestBody": "{}", "responseBody": "{\"error\":\"invalid\"}"})
}

fn error(ts: i64, message: &str) -> Value {
    json!({"tabId": 1, "ts": ts, "level": "error", "source": "console", "url": format!("{APP}/"), "message": message})
}

/// The page's service worker belongs to no tab (deep mode sees it, every tab of its origin shares
/// it): what it had fail, and Chrome's warning about it, are named in a tab's errors and summary,
/// whose tab filter leaves them out, within the same span only.
#[tokio::test]
async fn a_tab_s_answers_mention_what_failed_in_no_tab() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("actions", vec![load(1, T)]).await;
    let boom = format!("{APP}/api/boom");
    server.ingest("network_waterfall", vec![request(T + 100, "GET", &boom, 200)]).await;
    let mut by_worker = request(T + 101, "GET", &boom, 0);
    by_worker["tabId"] = Value::Null;
    by_worker["error"] = json!("net::ERR_INTERNET_DISCONNECTED");
    server.ingest("network_waterfall", vec![by_worker]).await;
    let warning = json!({"ts": T + 102, "level": "warn", "source": "browser", "url": format!("{APP}/sw.js"),
        "message": format!("The FetchEvent for \"{boom}\" resulted in a network error response: the promise was rejected.")});
    server.ingest("logs", vec![warning]).await;
    for args in [json!({"what": "errors", "tabId": 1}), json!({"what": "summary", "tabId": 1, "since": T})] {
        let answer = mcp.observe(args.clone()).await;
        let said = answer.to_string();
        assert!(
            said.contains(
                "In no tab, 1 request failed and 1 warning or error was logged in the same span (a service worker's"
            ),
            "{args}: {answer}"
        );
    }
    // Without tabId they are in the answer itself; a span after them has nothing to say of them.
    let all = mcp.observe(json!({"what": "errors"})).await;
    assert!(!all.to_string().contains("In no tab"), "{all}");
    let later = mcp.observe(json!({"what": "errors", "tabId": 1, "since": T + 150})).await;
    assert!(!later.to_string().contains("In no tab"), "{later}");
    mcp.close().await;
}

/// A POST that failed with 422 and logged nothing: an errors answer over the same span says so.
#[tokio::test]
async fn an_errors_answer_mentions_the_requests_that_failed_in_its_span() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("actions", vec![load(1, T)]).await;
    let checkout = format!("{APP}/api/checkout");
    server.ingest("network_waterfall", vec![request(T + 100, "POST", &checkout, 422)]).await;
    server.ingest("network_bodies", vec![body(T + 100, "POST", &checkout, 422)]).await;
    server.ingest("network_waterfall", vec![request(T + 200, "GET", &format!("{APP}/api/cart"), 200)]).await;

    for args in [
        json!({"what": "errors"}),
        json!({"what": "errors", "tabId": 1, "since_navigation": true}),
        json!({"what": "errors", "tabId": 1, "since": T}),
    ] {
        let answer = mcp.observe(args.clone()).await;
        assert_eq!(answer["total"], 0, "{args}: {answer}");
        let hint = answer["hint"].as_str().unwrap_or_default();
        assert!(hint.contains("1 request failed in the same span"), "{args}: {answer}");
        assert!(hint.contains("observe what=summary"), "{args}: {answer}");
    }
    let groups = mcp.observe(json!({"what": "errors", "group": true, "tabId": 1})).await;
    assert!(groups["hint"].as_str().unwrap_or_default().contains("1 request failed in the same span"), "{groups}");
    // Another tab's span, or one after the failure: nothing to say.
    let other = mcp.observe(json!({"what": "errors", "tabId": 2})).await;
    assert!(!other["hint"].as_str().unwrap_or_default().contains("failed in the same span"), "{other}");
    let later = mcp.observe(json!({"what": "errors", "since": T + 150})).await;
    assert!(!later["hint"].as_str().unwrap_or_default().contains("failed in the same span"), "{later}");
    // The hint is counted in the budget: the smallest answer still fits.
    let (small, chars) = mcp.ok_sized("observe", json!({"what": "errors", "max_chars": 1000, "max_tokens": 500})).await;
    assert!(chars <= 1000, "{small}");
    mcp.close().await;
}

/// The browser asks every origin for /favicon.ico; its 404 is never the app's failure: not an
/// error's context, not in summary's failed or slowest lists, still in the waterfall.
#[tokio::test]
async fn a_favicon_404_is_not_the_app_s_failure() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("actions", vec![load(1, T)]).await;
    let (favicon, _) = server
        .ingest(
            "network_waterfall",
            vec![
                request(T + 10, "GET", &format!("{APP}/favicon.ico"), 404),
                request(T + 11, "GET", "http://127.0.0.1:9000/favicon.ico?v=2", 404),
            ],
        )
        .await;
    let (orders, _) =
        server.ingest("network_waterfall", vec![request(T + 20, "GET", &format!("{APP}/api/orders"), 500)]).await;
    // Not the browser's guess: another path, or another status.
    let (others, _) = server
        .ingest(
            "network_waterfall",
            vec![
                request(T + 21, "GET", &format!("{APP}/static/favicon.ico"), 404),
                request(T + 22, "GET", &format!("{APP}/favicon.ico"), 500),
            ],
        )
        .await;
    server.ingest("logs", vec![error(T + 30, "Warning: Each child in a list should have a unique key")]).await;
    // Deep mode's browser console says so too, of the favicon and of the app's request alike.
    let browser = |dt: i64, url: &str, status: &str| {
        json!({"tabId": 1, "ts": T + dt, "level": "error", "source": "browser", "url": url,
            "message": format!("Failed to load resource: the server responded with a status of {status}")})
    };
    server
        .ingest(
            "logs",
            vec![
                browser(40, &format!("{APP}/favicon.ico"), "404 (Not Found)"),
                browser(41, &format!("{APP}/api/orders"), "500 (Internal Server Error)"),
            ],
        )
        .await;

    let errors = mcp.observe(json!({"what": "errors", "tabId": 1})).await;
    assert_eq!(entries(&errors).len(), 3, "every error is listed, the favicon's message too: {errors}");
    let context = &entries(&errors)[0]["context"]["network_waterfall"];
    assert_eq!(context, &json!([orders, others, others + 1]), "{errors}");

    let summary = mcp.observe(json!({"what": "summary", "tabId": 1})).await;
    let failed: Vec<i64> = summary["network_waterfall"]["failed"]
        .as_array()
        .unwrap_or_else(|| panic!("{summary}"))
        .iter()
        .map(|f| f["id"].as_i64().unwrap())
        .collect();
    assert!(!failed.contains(&favicon) && !failed.contains(&(favicon + 1)), "{summary}");
    assert!(failed.contains(&orders), "{summary}");
    // Nor among the slowest requests, however long the dev server took to answer it.
    let slowest: Vec<i64> =
        summary["network_waterfall"]["slowest"].as_array().unwrap().iter().map(|f| f["id"].as_i64().unwrap()).collect();
    assert_eq!(slowest.len(), 3, "{summary}");
    assert!(!slowest.contains(&favicon) && !slowest.contains(&(favicon + 1)), "{summary}");
    // Nor the browser's message about it among the groups of errors, here and by group.
    let examples = |groups: &Value| -> Vec<String> {
        groups
            .as_array()
            .unwrap_or_else(|| panic!("{groups}"))
            .iter()
            .map(|g| g["example"].as_str().unwrap().to_owned())
            .collect()
    };
    let groups = examples(&summary["errors"]["groups"]);
    assert_eq!(groups.len(), 2, "{summary}");
    assert!(groups.iter().any(|m| m.contains("status of 500")), "{summary}");
    assert!(!groups.iter().any(|m| m.contains("status of 404")), "{summary}");
    let grouped = mcp.observe(json!({"what": "errors", "tabId": 1, "group": true})).await;
    assert_eq!(examples(&grouped["groups"]).len(), 2, "{grouped}");

    // Still in the waterfall, and among requests of status 404.
    let listed = mcp.observe(json!({"what": "network_waterfall", "status_min": 404, "status_max": 404})).await;
    assert_eq!(listed["total"], 3, "{listed}");
    mcp.close().await;
}

/// One tab ever seen, none tracked: since_navigation and compare use it, and say so.
#[tokio::test]
async fn the_only_tab_seen_is_the_tab_when_none_is_sent_or_tracked() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("actions", vec![load(1, T)]).await;
    server.ingest("logs", vec![error(T + 10, "before")]).await;
    server.ingest("actions", vec![load(1, T + 1_000)]).await;
    server.ingest("logs", vec![error(T + 1_010, "after")]).await;

    let since = mcp.observe(json!({"what": "errors", "since_navigation": true})).await;
    assert_eq!(entries(&since).len(), 1, "{since}");
    assert_eq!(entries(&since)[0]["message"], "after", "{since}");
    assert_eq!(since["only_tab_id"], 1, "{since}");
    assert_eq!(since["navigation"]["tabId"], 1, "{since}");
    let summary = mcp.observe(json!({"what": "summary", "since_navigation": true})).await;
    assert_eq!(summary["only_tab_id"], 1, "{summary}");

    mcp.ok("configure", json!({"action": "mark", "name": "m"})).await;
    server.ingest("logs", vec![error(T + 1_020, "new one")]).await;
    let c = mcp.observe(json!({"what": "compare", "mark": "m"})).await;
    assert_eq!(c["only_tab_id"], 1, "{c}");
    assert!(!c["hint"].as_str().unwrap().contains("no tab is tracked"), "{c}");
    assert_eq!(c["vitals"], Value::Null, "{c}");

    // A second tab seen: no longer the only one. since_navigation takes the tab loaded last, and
    // says so; once the second tab loads a page, that one.
    let mut other = error(T + 2_000, "other tab");
    other["tabId"] = json!(2);
    server.ingest("logs", vec![other]).await;
    let since = mcp.observe(json!({"what": "errors", "since_navigation": true})).await;
    assert_eq!((since["loaded_last_tab_id"].clone(), since.get("only_tab_id")), (json!(1), None), "{since}");
    let messages = |a: &Value| entries(a).iter().map(|e| e["message"].clone()).collect::<Vec<_>>();
    assert_eq!(messages(&since), [json!("after"), json!("new one")], "{since}");
    server.ingest("actions", vec![load(2, T + 3_000)]).await;
    let mut second_error = error(T + 3_010, "after the second tab's load");
    second_error["tabId"] = json!(2);
    server.ingest("logs", vec![second_error]).await;
    let since = mcp.observe(json!({"what": "errors", "since_navigation": true})).await;
    assert_eq!(since["loaded_last_tab_id"], 2, "{since}");
    assert_eq!(since["navigation"]["tabId"], 2, "{since}");
    assert_eq!(entries(&since)[0]["message"], "after the second tab's load", "{since}");
    let named = mcp.observe(json!({"what": "errors", "since_navigation": true, "tabId": 1})).await;
    assert_eq!(named.get("loaded_last_tab_id"), None, "{named}");
    assert_eq!(messages(&named), [json!("after"), json!("new one")], "{named}");
    let c = mcp.observe(json!({"what": "compare", "mark": "m"})).await;
    assert!(c.get("only_tab_id").is_none(), "{c}");
    assert!(
        c["hint"].as_str().unwrap().contains("every tab's entries: no tabId was sent and no tab is tracked"),
        "{c}"
    );
    mcp.close().await;
}

/// A drill-down with `fields` returns those fields of each entry, as a page does.
#[tokio::test]
async fn a_drill_down_honours_fields() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let checkout = format!("{APP}/api/checkout");
    let (first, _) = server
        .ingest(
            "network_waterfall",
            vec![request(T + 100, "POST", &checkout, 422), request(T + 200, "GET", &format!("{APP}/api/cart"), 200)],
        )
        .await;
    let (err, _) = server.ingest("logs", vec![error(T + 150, "checkout failed")]).await;

    let drill =
        mcp.observe(json!({"what": "network_waterfall", "ids": [first, first + 1], "fields": ["url", "status"]})).await;
    let got = entries(&drill);
    assert_eq!(got.len(), 2, "{drill}");
    for e in &got {
        let mut keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["id", "status", "url"], "{drill}");
    }
    assert_eq!(got[0]["status"], 422, "{drill}");
    let one = mcp.observe(json!({"what": "errors", "id": err, "fields": ["message"]})).await;
    let e = &entries(&one)[0];
    assert_eq!(e["message"], "checkout failed", "{one}");
    assert!(e.get("source").is_none() && e.get("stack").is_none(), "{one}");
    assert_eq!(e["context"]["network_waterfall"], json!([first]), "{one}");
    // Without fields, or with ["all"]: whole, as before.
    let whole = mcp.observe(json!({"what": "network_waterfall", "id": first})).await;
    assert_eq!(entries(&whole)[0]["initiatorType"], "fetch", "{whole}");
    mcp.close().await;
}

/// Errors that repeat a few messages (a render loop) and do not all fit one answer: the hint says
/// how few distinct messages they are and how to see each once; an answer that shows them all, a
/// cursor read and errors that do not repeat say nothing of it.
#[tokio::test]
async fn an_errors_answer_of_repeats_points_to_the_groups() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let mut errors: Vec<Value> =
        (0..40).map(|i| error(T + i, &format!("TypeError: cannot read 'name' of undefined (render {i})"))).collect();
    errors.push(error(T + 50, "Failed to load config"));
    server.ingest("logs", errors).await;
    let note =
        "the 41 matching errors are 2 distinct messages, the most frequent 40 times: observe what=errors group=true";

    let paged = mcp.observe(json!({"what": "errors", "limit": 5})).await;
    assert_eq!((paged["count"].as_i64(), paged["total"].as_i64()), (Some(5), Some(41)), "{paged}");
    assert!(paged["hint"].as_str().unwrap_or_default().contains(note), "{paged}");
    // Following the hint shows both messages, each once with its count.
    let groups = mcp.observe(json!({"what": "errors", "group": true})).await;
    assert_eq!(groups["total_groups"], 2, "{groups}");
    assert_eq!(groups["groups"][0]["count"], 40, "{groups}");

    let all = mcp.observe(json!({"what": "errors", "limit": 100})).await;
    assert_eq!(all["count"], 41, "{all}");
    assert!(!all["hint"].as_str().unwrap_or_default().contains("distinct message"), "{all}");
    let cursor = mcp.observe(json!({"what": "errors", "after_cursor": 1, "limit": 5})).await;
    assert!(!cursor["hint"].as_str().unwrap_or_default().contains("distinct message"), "{cursor}");

    let db2 = TempDb::new();
    let other = Server::start(&db2.path, &[]);
    let mcp2 = Mcp::http(&other).await;
    other
        .ingest(
            "logs",
            (0..10)
                .map(|i| {
                    error(
                        T + i,
                        &format!("Failed to load {}", ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"][i as usize]),
                    )
                })
                .collect(),
        )
        .await;
    let distinct = mcp2.observe(json!({"what": "errors", "limit": 5})).await;
    assert_eq!(distinct["total"], 10, "{distinct}");
    assert!(!distinct["hint"].as_str().unwrap_or_default().contains("distinct message"), "{distinct}");
}

/// A server-rendered app: every full page load fails the same assets again (a renamed stylesheet, a
/// logo never committed), while the server's own failures happen once each: a form shown again with
/// 422, a POST that redirected to a 500. The summary names the pages that failed first, ahead of
/// the assets' repeats (a Flask + htmx review: an agent starting at the summary missed all three).
#[tokio::test]
async fn a_summary_names_the_pages_that_failed_ahead_of_assets_failing_on_every_load() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let page_failed = |ts: i64, path: &str, status: i64| {
        let url = format!("{APP}{path}");
        json!({"tabId": 1, "ts": ts, "level": "error", "source": "resource", "tag": "document", "url": url,
               "resourceUrl": url, "message": format!("The page answered {status}: {url} (Shop)")})
    };
    let asset_failed = |ts: i64, asset: &str| {
        let url = format!("{APP}/static/{asset}");
        json!({"tabId": 1, "ts": ts, "level": "error", "source": "resource", "tag": "img", "url": format!("{APP}/"),
               "resourceUrl": url, "message": format!("Failed to load image: {url}")})
    };
    let document = |ts: i64, path: &str, status: i64| {
        json!({"tabId": 1, "ts": ts, "url": format!("{APP}{path}"), "method": null, "initiatorType": "navigation",
               "responseStatus": status, "source": "page"})
    };
    let asset = |ts: i64, name: &str| {
        json!({"tabId": 1, "ts": ts, "url": format!("{APP}/static/{name}"), "method": null, "initiatorType": "img",
               "responseStatus": 404, "source": "page"})
    };
    let assets = ["logo.png", "hero.png", "a.png", "b.png", "c.png", "d.png"];
    let mut logs = vec![page_failed(T, "/contact", 422), page_failed(T + 10, "/items/2", 500)];
    let mut after_post = document(T + 10, "/items/2", 500);
    after_post["afterFormPost"] = json!(format!("{APP}/items/new"));
    let mut rows = vec![document(T, "/contact", 422), after_post];
    for load in 0..4 {
        for (i, name) in assets.iter().enumerate() {
            let ts = T + 1000 * (load + 1) + i as i64;
            logs.push(asset_failed(ts, name));
            rows.push(asset(ts, name));
        }
    }
    server.ingest("logs", logs).await;
    server.ingest("network_waterfall", rows).await;

    let summary = mcp.observe(json!({"what": "summary"})).await;
    let groups = summary["errors"]["groups"].as_array().expect("error groups");
    let first: Vec<&str> = groups[..2].iter().map(|g| g["example"].as_str().unwrap()).collect();
    assert!(
        first[0].contains(&format!("answered 422: {APP}/contact"))
            && first[1].contains(&format!("answered 500: {APP}/items/2")),
        "{summary}"
    );
    assert_eq!(summary["errors"]["not_shown"], 3, "the assets' groups left out are counted: {summary}");
    let failed = summary["network_waterfall"]["failed"].as_array().expect("failed requests");
    let urls: Vec<&str> = failed[..2].iter().map(|f| f["url"].as_str().unwrap()).collect();
    assert_eq!(urls, [format!("{APP}/items/2"), format!("{APP}/contact")], "{summary}");
    // The 500 was the GET the form's POST redirected to: the item says which form.
    assert_eq!(failed[0]["afterFormPost"], format!("{APP}/items/new"), "{summary}");
    // Then the latest failures, each once with its count.
    assert_eq!(failed[2]["count"], 4, "{summary}");
    // A page a fetch got (a Turbo visit's, an htmx boost's: its HTML error page's text) is a page too.
    let visit = |ts: i64, path: &str, status: i64, page: Option<&str>| {
        let mut b = json!({"tabId": 1, "ts": ts, "url": format!("{APP}{path}"), "method": "POST", "status": status,
                           "duration": 9.0, "initiator": "fetch", "responseBody": "{}"});
        if let Some(text) = page {
            b["pageText"] = json!(text);
        }
        b
    };
    let mut bodies = vec![visit(T + 20, "/signup", 422, Some("Email is invalid"))];
    bodies.extend(
        (0..6).map(|i| {
            visit(T + 5000 + i, &format!("/api/poll/{}", ["a", "b", "c", "d", "e", "f"][i as usize]), 500, None)
        }),
    );
    server.ingest("network_bodies", bodies).await;
    let summary = mcp.observe(json!({"what": "summary"})).await;
    let failed = summary["network_bodies"]["failed"].as_array().expect("failed bodies");
    assert_eq!(failed[0]["url"], format!("{APP}/signup"), "{summary}");
    // The same order where the groups are listed in full.
    let listed = mcp.observe(json!({"what": "errors", "group": true})).await;
    assert!(
        listed["groups"][0]["example"].as_str().unwrap().contains(&format!("answered 422: {APP}/contact")),
        "{listed}"
    );
}

/// An error thrown by the script of a part an htmx request swapped in runs as code of no file
/// (`at <anonymous>:1:1`, then htmx's frames): its context names the response that brought it,
/// though that request succeeded (a Flask + htmx review found the partial only by guessing).
#[tokio::test]
async fn an_error_thrown_by_a_swapped_in_script_names_the_response_that_brought_it() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("actions", vec![load(1, T)]).await;
    let stats = json!({"tabId": 1, "ts": T + 100, "url": format!("{APP}/stats"), "method": "GET", "status": 200,
                       "duration": 8.0, "initiator": "xhr", "responseBody": "<div><script>formatSparkline(stats)</script></div>"});
    let other = json!({"tabId": 1, "ts": T + 50, "url": format!("{APP}/api/me"), "method": "GET", "status": 200,
                       "duration": 8.0, "initiator": "fetch", "responseBody": "{}"});
    server.ingest("network_bodies", vec![other, stats]).await;
    let thrown = |ts: i64, message: &str, stack: &str| {
        json!({"tabId": 1, "ts": ts, "level": "error", "source": "exception", "url": format!("{APP}/"),
               "message": message, "stack": stack})
    };
    server
        .ingest(
            "logs",
            vec![
                thrown(
                    T + 120,
                    "ReferenceError: formatSparkline is not defined",
                    &format!("ReferenceError: formatSparkline is not defined\n    at <anonymous>:1:1\n    at At ({APP}/static/htmx.min.js:1:23203)"),
                ),
                // A built-in's frame names no file either, but it is no script a response brought.
                thrown(
                    T + 130,
                    "SyntaxError: Unexpected token '<'",
                    &format!("SyntaxError: Unexpected token '<'\n    at JSON.parse (<anonymous>)\n    at load ({APP}/app.js:3:9)"),
                ),
            ],
        )
        .await;
    let errors = mcp.observe(json!({"what": "errors"})).await;
    let entries = errors["entries"].as_array().expect("entries");
    assert_eq!(entries[0]["context"]["response"], 2, "the /stats response: {errors}");
    assert!(entries[1]["context"].get("response").is_none(), "{errors}");
    let full = mcp.observe(json!({"what": "errors", "context": "full", "limit": 1})).await;
    let response = &full["entries"][0]["context"]["response"];
    assert_eq!(response["url"], format!("{APP}/stats"), "{full}");
}

/// A body read as JSON that was none (an HTML page answered to an API call): the SyntaxError has
/// no frame of the page's, and the request that failed beside it is another. The extension names
/// the response (`jsonFrom`), and the error's context lists that one (a Turbo review: the context
/// pointed at the 500 of another call).
#[tokio::test]
async fn an_error_of_a_body_that_was_no_json_names_that_response() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    server.ingest("actions", vec![load(1, T)]).await;
    let mut prices = body(T + 100, "GET", &format!("{APP}/api/prices"), 500);
    prices["responseBody"] = json!("{\"error\":\"down\"}");
    let mut cart = body(T + 110, "GET", &format!("{APP}/api/cart"), 200);
    cart["responseBody"] = json!("<!doctype html><title>Sign in</title>");
    server.ingest("network_bodies", vec![prices, cart]).await;
    let message = "Unhandled rejection: SyntaxError: Unexpected token '<', \"<!doctype \"... is not valid JSON";
    let mut thrown = error(T + 120, message);
    thrown["source"] = json!("unhandledrejection");
    thrown["jsonFrom"] = json!(format!("{APP}/api/cart"));
    server.ingest("logs", vec![thrown]).await;
    let errors = mcp.observe(json!({"what": "errors"})).await;
    let entry = &errors["entries"][0];
    assert_eq!(entry["context"]["response"], 2, "the /api/cart body: {errors}");
    assert_eq!(entry["context"]["network_bodies"], json!([1]), "the failed call stays listed: {errors}");
    assert_eq!(entry["jsonFrom"], format!("{APP}/api/cart"), "{errors}");
}

/// One URL failing the same way from three places in the page's code (an Angular review: HttpClient
/// with the XHR backend, raw fetch, HttpClient withFetch): the summary's item names the newest
/// row's own place as `at`, as its `id`'s drill-down shows it, and the other places beside it, so
/// that no call site is folded away unnamed.
#[tokio::test]
async fn a_failed_request_s_summary_place_is_its_newest_row_s_and_names_the_others() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let url = format!("{APP}/api/items/999");
    let from = |ts: i64, at: &str| {
        let mut row = request(ts, "GET", &url, 404);
        row["location"] = json!(format!("{APP}/{at}"));
        row
    };
    server.ingest("actions", vec![load(1, T)]).await;
    server
        .ingest(
            "network_waterfall",
            vec![
                from(T + 10, "src/home.ts:45:24"),
                from(T + 20, "src/home.ts:95:5"),
                from(T + 30, "src/home.ts:45:24"),
                from(T + 40, "src/cart.ts:7:3"),
            ],
        )
        .await;
    let summary = mcp.observe(json!({"what": "summary", "tabId": 1})).await;
    let item = &summary["network_waterfall"]["failed"][0];
    assert_eq!(item["count"], 4, "{summary}");
    let newest = mcp.observe(json!({"what": "network_waterfall", "id": item["id"], "fields": "all"})).await;
    assert_eq!(item["at"], format!("{APP}/src/cart.ts:7:3"), "{summary}");
    assert_eq!(entries(&newest)[0]["location"], format!("{APP}/src/cart.ts:7:3"), "{newest}");
    assert_eq!(
        item["also_at"],
        json!([format!("{APP}/src/home.ts:45:24"), format!("{APP}/src/home.ts:95:5")]),
        "{summary}"
    );
    mcp.close().await;
}

/// A response a service worker or a cache answered transfers no bytes: its compact `size` is its
/// body's, not a 0 an agent reads as an empty response (a review with MSW's mocked API); with
/// neither known (a cross-origin response without Timing-Allow-Origin), no size at all.
#[tokio::test]
async fn a_response_that_transferred_nothing_is_sized_by_its_body() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let sized = |path: &str, transfer: i64, encoded: i64| {
        let mut r = request(T, "GET", &format!("{APP}{path}"), 200);
        r["transferSize"] = json!(transfer);
        r["encodedBodySize"] = json!(encoded);
        r["fromServiceWorker"] = json!("fetch-handler");
        r
    };
    server
        .ingest(
            "network_waterfall",
            vec![sized("/api/products", 0, 169), sized("/api/user", 470, 169), sized("/opaque.png", 0, 0)],
        )
        .await;
    let answer = mcp.observe(json!({"what": "network_waterfall"})).await;
    let sizes: Vec<(String, Value)> = entries(&answer)
        .iter()
        .map(|e| {
            (e["url"].as_str().unwrap_or_default().replace(APP, ""), e.get("size").cloned().unwrap_or(Value::Null))
        })
        .collect();
    assert_eq!(
        sizes,
        vec![
            ("/api/products".to_string(), json!(169)),
            ("/api/user".to_string(), json!(470)),
            ("/opaque.png".to_string(), Value::Null)
        ],
        "{answer}"
    );
    mcp.close().await;
}

/// Errors the app caught and logged, over and over (a data library retrying each failing query),
/// do not push the ones nobody caught off the summary: an uncaught error and an unhandled
/// rejection come first, and say so (a review with TanStack Query: both crashes were not shown).
#[tokio::test]
async fn a_summary_shows_what_nobody_caught_ahead_of_errors_logged_again_and_again() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let mut logs = Vec::new();
    for query in ["products", "orders", "settings", "user", "cart", "prices"] {
        for retry in 0..4 {
            logs.push(error(
                T + logs.len() as i64,
                &format!("Query ['{query}'] failed: Error: HTTP 500 (try {retry})"),
            ));
        }
    }
    let mut thrown = error(T + 100, "TypeError: Cannot read properties of undefined (reading 'discount')");
    thrown["source"] = json!("exception");
    let mut rejected = error(T + 101, "Unhandled rejection: Cart sync failed");
    rejected["source"] = json!("unhandledrejection");
    logs.extend([thrown, rejected]);
    server.ingest("logs", logs).await;
    let summary = mcp.observe(json!({"what": "summary"})).await;
    let groups = summary["errors"]["groups"].as_array().expect("error groups");
    let first: Vec<(&str, bool)> = groups
        .iter()
        .take(2)
        .map(|g| (g["example"].as_str().unwrap_or_default(), g["uncaught"].as_bool().unwrap_or(false)))
        .collect();
    assert_eq!(
        first,
        vec![
            ("TypeError: Cannot read properties of undefined (reading 'discount')", true),
            ("Unhandled rejection: Cart sync failed", true)
        ],
        "{summary}"
    );
    assert!(groups[2].get("uncaught").is_none(), "a logged error says nothing of it: {summary}");
    mcp.close().await;
}

/// A line logged inside a console group says which: MSW's "Request" line means something under
/// its "[MSW] 12:00:01 GET /api/products (200 OK)" (a review found compact logs dropped it).
#[tokio::test]
async fn a_line_logged_in_a_console_group_names_the_group() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let label = "[MSW] 12:00:01 GET /api/products (200 OK)";
    let mut header = error(T, label);
    header["level"] = json!("log");
    header["method"] = json!("groupCollapsed");
    let mut line = error(T + 1, "Request {\"method\":\"GET\",\"url\":\"http://localhost:5173/api/products\"}");
    line["level"] = json!("log");
    line["group"] = json!([label]);
    server.ingest("logs", vec![header, line]).await;
    let answer = mcp.observe(json!({"what": "logs"})).await;
    let listed = entries(&answer);
    assert_eq!(listed.len(), 2, "{answer}");
    assert!(listed[0].get("group").is_none(), "{answer}");
    assert_eq!(listed[1]["group"], json!([label]), "{answer}");
    mcp.close().await;
}

/// A request a framework's client made from its own code alone (React Router's `.data` fetches,
/// for every route from one line of its chunk) names no place: a library's line leads an agent
/// into the library. One the page's code made still names it.
#[tokio::test]
async fn a_request_only_library_code_made_names_no_place() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let from = |ts: i64, path: &str, at: &str| {
        let mut row = request(ts, "GET", &format!("{APP}{path}"), 500);
        row["location"] = json!(format!("{APP}/{at}"));
        row
    };
    server.ingest("actions", vec![load(1, T)]).await;
    server
        .ingest(
            "network_waterfall",
            vec![
                from(T + 10, "/broken.data", "node_modules/.vite/deps/react-router.js?v=1a2b3c4d:8646:19"),
                from(T + 20, "/api/cart", "src/cart.ts:7:3"),
            ],
        )
        .await;
    let listed = mcp.observe(json!({"what": "network_waterfall", "tabId": 1})).await;
    let places: Vec<(String, Option<String>)> = entries(&listed)
        .iter()
        .map(|e| {
            let place = e.get("at").or_else(|| e.get("location")).and_then(Value::as_str).map(str::to_owned);
            (e["url"].as_str().unwrap_or_default().replace(APP, ""), place)
        })
        .collect();
    assert_eq!(
        places,
        vec![("/broken.data".to_string(), None), ("/api/cart".to_string(), Some(format!("{APP}/src/cart.ts:7:3")))],
        "{listed}"
    );
    let summary = mcp.observe(json!({"what": "summary", "tabId": 1})).await;
    let failed = summary["network_waterfall"]["failed"].as_array().expect("failed requests");
    let broken =
        failed.iter().find(|f| f["url"].as_str().is_some_and(|u| u.ends_with("/broken.data"))).expect("listed");
    assert!(broken.get("at").is_none(), "{summary}");
    mcp.close().await;
}

/// The summary's other log groups: warnings first, whoever logged them; then what the app logged,
/// ahead of what its libraries and dev server logged on every load (React's DevTools banner, an
/// info, had ranked over the app's own log line in a React Router review).
#[tokio::test]
async fn a_summary_lists_the_app_s_own_log_lines_ahead_of_its_libraries_banners() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let mcp = Mcp::http(&server).await;
    let line = |ts: i64, level: &str, message: &str, at: &str| {
        let mut l = error(ts, message);
        l["level"] = json!(level);
        l["location"] = json!(format!("{APP}/{at}"));
        l
    };
    let mut logs = Vec::new();
    for i in 0..6 {
        logs.push(line(
            T + i,
            "info",
            "Download the React DevTools for a better development experience: https://react.dev/link/react-devtools",
            "node_modules/.vite/deps/react-dom_client.js?v=5e6f7a8b:14:5",
        ));
        logs.push(line(T + 10 + i, "debug", "[vite] connected.", "@vite/client:912:15"));
    }
    logs.push(line(T + 20, "log", "cart state", "app/routes/home.tsx:38:50"));
    logs.push(line(
        T + 21,
        "warn",
        "Each child in a list should have a unique \"key\" prop.",
        "node_modules/.vite/deps/react-dom_client.js?v=5e6f7a8b:20:3",
    ));
    server.ingest("logs", logs).await;
    let summary = mcp.observe(json!({"what": "summary"})).await;
    let order: Vec<&str> = summary["logs"]["groups"]
        .as_array()
        .expect("log groups")
        .iter()
        .map(|g| g["example"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(order.len(), 4, "{summary}");
    assert!(order[0].starts_with("Each child in a list"), "{summary}");
    assert_eq!(order[1], "cart state", "{summary}");
    mcp.close().await;
}
