//! observe `search`, black-box: the real server fed realistic entries over HTTP,
//! a real MCP client. The text is matched as the page produced it, in every kind,
//! with every filter and paging mode; syntax is plain text.

mod common;

use common::{Mcp, Server, TempDb, entries, ids};
use serde_json::{Value, json};

const T: i64 = 1_790_000_000_000;

async fn capture(server: &Server) {
    server
        .ingest(
            "logs",
            vec![
                json!({"tabId": 1, "ts": T, "level": "log", "source": "console", "url": "http://localhost:5173/",
                       "message": "cart {items:3}", "args": ["cart", {"items": 3, "coupon": "SPRING-25%"}]}),
                json!({"tabId": 1, "ts": T + 1, "level": "error", "source": "exception", "url": "http://localhost:5173/",
                       "message": "TypeError: Cannot read properties of undefined (reading 'total')",
                       "stack": "TypeError: Cannot read properties of undefined (reading 'total')\n    at Cart (http://localhost:5173/src/Cart.jsx?t=1732400000000:45:13)"}),
                json!({"tabId": 2, "ts": T + 2, "level": "warn", "source": "console", "url": "http://localhost:5173/other",
                       "message": "He said \"hello\" to the café"}),
            ],
        )
        .await;
    server
        .ingest(
            "network_bodies",
            vec![
                json!({"tabId": 1, "ts": T + 3, "method": "POST", "url": "http://localhost:5173/api/orders", "status": 201,
                       "requestHeaders": {"Content-Type": "application/json"},
                       "requestBody": "{\"sku\":\"A-1\",\"qty\":2}",
                       "responseHeaders": {"X-Request-Id": "req-9f2c", "Content-Type": "application/json"},
                       "responseBody": "{\"order\":4711,\"state\":\"created\"}"}),
                json!({"tabId": 1, "ts": T + 4, "method": "GET", "url": "http://localhost:5173/api/orders/4712", "status": 404,
                       "responseBody": "{\"error\":\"no order 4712\"}"}),
            ],
        )
        .await;
    server
        .ingest(
            "network_waterfall",
            vec![json!({"tabId": 1, "ts": T + 5, "url": "http://localhost:5173/assets/logo-4711.svg",
                         "initiatorType": "img", "responseStatus": 200, "duration": 3.5})],
        )
        .await;
    server
        .ingest(
            "websocket_events",
            vec![json!({"tabId": 1, "ts": T + 6, "connectionId": "ws1", "event": "message", "direction": "incoming",
                       "url": "ws://localhost:5173/live", "data": "{\"type\":\"price\",\"order\":4711}"})],
        )
        .await;
    server
        .ingest(
            "actions",
            vec![json!({"tabId": 1, "ts": T + 7, "type": "click", "selector": "button#checkout.primary",
                         "text": "Place order", "url": "http://localhost:5173/"})],
        )
        .await;
}

fn all(args: Value) -> Value {
    let mut args = args;
    args["max_tokens"] = json!(100_000);
    args["max_chars"] = json!(500_000);
    args
}

#[tokio::test]
async fn finds_the_page_s_text_in_every_kind() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    capture(&server).await;
    let mcp = Mcp::http(&server).await;

    // A response body holding JSON: quotes are ordinary characters.
    let found = mcp.observe(json!({"what": "network_bodies", "search": "\"order\":4711"})).await;
    assert_eq!(found["total"], 1, "{found}");
    assert_eq!(entries(&found)[0]["url"], "http://localhost:5173/api/orders");
    // Case-insensitive; header names and values; request bodies.
    for needle in ["x-request-id", "REQ-9F2C", "\"qty\":2", "no order"] {
        let a = mcp.observe(json!({"what": "network_bodies", "search": needle})).await;
        assert_eq!(a["total"], 1, "{needle}: {a}");
    }
    // Field names of ours are not the page's text; JSON escaping is not either.
    let none = mcp.observe(json!({"what": "network_bodies", "search": "responseBody"})).await;
    assert_eq!(none["total"], 0, "{none}");
    let escaped = mcp.observe(json!({"what": "logs", "search": "\\\""})).await;
    assert_eq!(escaped["total"], 0, "a backslash-quote is how quotes are stored, not what the page logged: {escaped}");
    let quoted = mcp.observe(json!({"what": "logs", "search": "said \"HELLO\" to the CAFÉ"})).await;
    assert_eq!(quoted["total"], 1, "{quoted}");

    // Messages, arguments, stacks (through the errors view too), URLs, WebSocket data, action targets.
    let cases = [
        ("logs", "spring-25%", 1),
        ("logs", "src/Cart.jsx", 1),
        ("errors", "reading 'total'", 1),
        ("logs", "localhost:5173/other", 1),
        ("network_waterfall", "logo-4711", 1),
        ("websocket_events", "\"order\":4711", 1),
        ("actions", "#checkout", 1),
        ("actions", "place ORDER", 1),
        ("network_bodies", "4711", 1),
        ("network_bodies", "orders", 2),
    ];
    for (what, needle, n) in cases {
        let a = mcp.observe(json!({"what": what, "search": needle})).await;
        assert_eq!(a["total"], n, "{what} {needle}: {a}");
        assert_eq!(a["count"], n, "{what} {needle}: {a}");
    }
    mcp.close().await;
}

#[tokio::test]
async fn syntax_is_plain_text_and_bad_input_says_what_to_send() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    capture(&server).await;
    server
        .ingest(
            "logs",
            vec![json!({"tabId": 1, "ts": T + 9, "level": "log", "message": "odd: 100% _x_ a*b NEAR \"open - x' (y"})],
        )
        .await;
    let mcp = Mcp::http(&server).await;
    // Counted by hand over the four logs' messages, arguments, stacks and URLs.
    let cases = [
        ("%", 2),
        ("_x_", 1),
        ("a*b", 1),
        ("NEAR", 1),
        ("\"open", 1),
        ("- x'", 1),
        ("(y", 1),
        ("'", 2),
        ("\"", 2),
        ("*", 1),
        ("-", 2),
        ("NEAR(\"a b\")", 0),
        ("\\", 0),
        ("%_", 0),
        ("_", 1),
    ];
    for (needle, n) in cases {
        let a = mcp.observe(json!({"what": "logs", "search": needle})).await;
        assert_eq!(a["total"], n, "{needle} is plain text: {a}");
    }
    let empty = mcp.err("observe", json!({"what": "logs", "search": ""})).await;
    assert!(empty.contains("search is empty"), "{empty}");
    let huge = mcp.err("observe", json!({"what": "logs", "search": "x".repeat(5_000)})).await;
    assert!(huge.contains("at most 1000"), "{huge}");
    let wrong = mcp.err("observe", json!({"what": "page", "search": "x"})).await;
    assert!(wrong.contains("does not apply"), "{wrong}");
    // Still serving.
    assert_eq!(mcp.observe(json!({"what": "logs"})).await["total"], 4);
    mcp.close().await;
}

#[tokio::test]
async fn search_pages_like_any_filter() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    // 300 logs over 3 tabs; every third mentions order 4711.
    let batch: Vec<Value> = (0..300)
        .map(|i| {
            let msg = if i % 3 == 0 { format!("order {{\"id\":4711,\"n\":{i}}}") } else { format!("idle {i}") };
            json!({"tabId": i % 3 + (i / 150), "ts": T + i, "level": "log", "message": msg})
        })
        .collect();
    let (first, _) = server.ingest("logs", batch).await;
    let mcp = Mcp::http(&server).await;
    let expected: Vec<i64> = (0..300).filter(|i| i % 3 == 0).map(|i| first + i).collect();

    let whole = mcp.observe(all(json!({"what": "logs", "search": "\"ID\":4711"}))).await;
    assert_eq!(ids(&whole), expected);
    assert_eq!(whole["total"], 100);

    // Offsets, negative offsets, cursors both ways: the same rows, once each.
    let page = mcp.observe(json!({"what": "logs", "search": "\"id\":4711", "offset": 10, "limit": 5})).await;
    assert_eq!(ids(&page), expected[10..15]);
    assert_eq!(page["next_offset"], 15);
    let last = mcp.observe(json!({"what": "logs", "search": "\"id\":4711", "offset": -7})).await;
    assert_eq!(ids(&last), expected[93..]);
    let mut seen = Vec::new();
    let mut cursor = 0;
    loop {
        let a =
            mcp.observe(json!({"what": "logs", "search": "\"id\":4711", "after_cursor": cursor, "limit": 17})).await;
        seen.extend(ids(&a));
        cursor = a["cursor"].as_i64().unwrap();
        if a["has_more"] == false {
            break;
        }
    }
    assert_eq!(seen, expected);
    let mut back = Vec::new();
    let mut before = expected[expected.len() - 1] + 1;
    loop {
        let a =
            mcp.observe(json!({"what": "logs", "search": "\"id\":4711", "before_cursor": before, "limit": 23})).await;
        let mut page = ids(&a);
        page.extend(back);
        back = page;
        before = a["prev_cursor"].as_i64().unwrap();
        if a["has_older"] == false {
            break;
        }
    }
    assert_eq!(back, expected);

    // With a tab and fields.
    let tab = mcp.observe(all(json!({"what": "logs", "search": "4711", "tabId": 0, "fields": ["message"]}))).await;
    let want: Vec<i64> = (0..300).filter(|i| i % 3 == 0 && i % 3 + i / 150 == 0).map(|i| first + i).collect();
    assert_eq!(ids(&tab), want);
    assert!(entries(&tab).iter().all(|e| e["message"].as_str().unwrap().contains("4711")), "{tab}");

    // Live appends: a cursor read goes on with the new matches only.
    server
        .ingest("logs", vec![json!({"tabId": 1, "ts": T + 1_000, "level": "log", "message": "late {\"id\":4711}"})])
        .await;
    let more = mcp.observe(json!({"what": "logs", "search": "\"id\":4711", "after_cursor": cursor})).await;
    assert_eq!(ids(&more), vec![first + 300]);

    // Under a small budget the answer still fits and says how to go on.
    let (small, chars) =
        mcp.ok_sized("observe", json!({"what": "logs", "search": "4711", "max_tokens": 500, "max_chars": 1000})).await;
    assert!(chars <= 1000, "{chars}");
    assert_eq!(small["has_more"], true);
    mcp.close().await;
}
