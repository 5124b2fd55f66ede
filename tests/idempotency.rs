//! Batch keys, black-box: a batch sent again under its `Idempotency-Key` gets
//! the first answer and stores nothing again; the server remembers a bounded
//! number of keys; a refused batch is not remembered.

mod common;

use common::{Server, TempDb, count, logs, open_db};
use serde_json::{Value, json};

struct Reply {
    status: u16,
    body: String,
    replayed: bool,
}

async fn send(server: &Server, kind: &str, body: &Value, key: Option<&str>) -> Reply {
    send_to(server.url(&format!("/events/{kind}")), body.to_string(), key.map(str::to_owned)).await
}

async fn send_to(url: String, body: String, key: Option<String>) -> Reply {
    let mut request = reqwest::Client::new().post(url).header("content-type", "application/json").body(body);
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    let response = request.send().await.expect("POST");
    let status = response.status().as_u16();
    let replayed = response.headers().get("idempotent-replayed").is_some_and(|v| v == "true");
    Reply { status, body: response.text().await.expect("body"), replayed }
}

fn batch(from: usize, n: usize) -> Value {
    json!({ "entries": logs(n, from, Some(3)) })
}

fn messages(db: &std::path::Path) -> Vec<String> {
    let conn = open_db(db);
    let mut stmt = conn.prepare("SELECT message FROM logs ORDER BY id").expect("select");
    stmt.query_map([], |r| r.get(0)).expect("rows").collect::<Result<_, _>>().expect("messages")
}

#[tokio::test]
async fn a_batch_sent_again_gets_the_first_answer_and_is_stored_once() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let first = send(&server, "logs", &batch(0, 5), Some("life1-logs-1-5")).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(!first.replayed);
    let answer: Value = serde_json::from_str(&first.body).expect("json");
    assert_eq!(answer["accepted"], 5);

    // Another batch between the two sends, then the first again (its reply was lost).
    let other = send(&server, "logs", &batch(5, 2), Some("life1-logs-6-2")).await;
    assert_eq!(other.status, 200);
    for _ in 0..3 {
        let again = send(&server, "logs", &batch(0, 5), Some("life1-logs-1-5")).await;
        assert_eq!((again.status, &again.body), (200, &first.body), "the first answer, byte for byte");
        assert!(again.replayed, "marked as a replay");
    }
    assert_eq!(messages(&db.path), (0..7).map(|i| format!("m{i}")).collect::<Vec<_>>(), "each entry once");

    // Tabs and vitals are batches too.
    let tabs = json!({ "entries": [{ "tabId": 3, "url": "http://app/", "title": "App" }] });
    let t1 = send(&server, "tabs", &tabs, Some("life1-tabs-9-1")).await;
    let t2 = send(&server, "tabs", &tabs, Some("life1-tabs-9-1")).await;
    assert_eq!((t1.status, t2.status, t2.replayed, &t1.body), (200, 200, true, &t2.body));

    // Without a key nothing is remembered: a resend is stored again, as before.
    send(&server, "logs", &batch(100, 1), None).await;
    send(&server, "logs", &batch(100, 1), None).await;
    assert_eq!(count(&db.path, "logs"), 9);
}

#[tokio::test]
async fn the_same_batch_sent_at_once_many_times_is_stored_once() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let body = batch(0, 20).to_string();
    let url = server.url("/events/logs");
    let sends: Vec<_> =
        (0..16).map(|_| tokio::spawn(send_to(url.clone(), body.clone(), Some("k-concurrent".into())))).collect();
    let mut replies = Vec::new();
    for send in sends {
        replies.push(send.await.expect("task"));
    }
    assert!(replies.iter().all(|r| r.status == 200), "every send answered 200");
    assert_eq!(replies.iter().filter(|r| !r.replayed).count(), 1, "one stored it, the others were replays");
    assert!(replies.iter().all(|r| r.body == replies[0].body), "one answer for all");
    assert_eq!(count(&db.path, "logs"), 20);
}

#[tokio::test]
async fn a_key_reused_for_another_batch_is_refused_and_stores_nothing() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    assert_eq!(send(&server, "logs", &batch(0, 2), Some("k1")).await.status, 200);
    let other_body = send(&server, "logs", &batch(50, 2), Some("k1")).await;
    assert_eq!(other_body.status, 409, "{}", other_body.body);
    assert!(other_body.body.contains("Idempotency-Key was used for another batch"), "{}", other_body.body);
    let other_kind = send(&server, "actions", &json!({"entries": [{"type": "click"}]}), Some("k1")).await;
    assert_eq!(other_kind.status, 409);
    assert_eq!(count(&db.path, "logs"), 2);
    assert_eq!(count(&db.path, "actions"), 0);
}

#[tokio::test]
async fn a_refused_batch_is_not_remembered_and_a_bad_key_is_refused() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let bad = json!({ "entries": [{ "level": "loud", "message": "x" }] });
    assert_eq!(send(&server, "logs", &bad, Some("k2")).await.status, 400);
    // The key was not used up by the refusal: the corrected batch is stored under it.
    let good = send(&server, "logs", &batch(0, 1), Some("k2")).await;
    assert_eq!((good.status, good.replayed), (200, false));
    assert_eq!(count(&db.path, "logs"), 1);

    for key in ["", "has space", &"x".repeat(201)] {
        let r = send(&server, "logs", &batch(9, 1), Some(key)).await;
        assert_eq!(r.status, 400, "key {key:?}: {}", r.body);
        assert!(r.body.contains("Idempotency-Key must be"), "{}", r.body);
    }
    let twice = reqwest::Client::new()
        .post(server.url("/events/logs"))
        .header("content-type", "application/json")
        .header("idempotency-key", "k3")
        .header("idempotency-key", "k4")
        .body(batch(9, 1).to_string())
        .send()
        .await
        .expect("POST");
    assert_eq!(twice.status().as_u16(), 400);
    assert!(twice.text().await.expect("body").contains("one Idempotency-Key header"));
    assert_eq!(count(&db.path, "logs"), 1, "nothing stored under a bad key");
}

#[tokio::test]
async fn the_server_remembers_only_the_newest_keys() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &["--remembered-batches", "3"]);
    for i in 0..5 {
        assert_eq!(send(&server, "logs", &batch(i, 1), Some(&format!("b{i}"))).await.status, 200);
    }
    assert_eq!(count(&db.path, "batch_keys"), 3, "the table is bounded");
    let kept: Vec<String> = {
        let conn = open_db(&db.path);
        let mut stmt = conn.prepare("SELECT key FROM batch_keys ORDER BY id").expect("select");
        stmt.query_map([], |r| r.get(0)).expect("rows").collect::<Result<_, _>>().expect("keys")
    };
    assert_eq!(kept, ["b2", "b3", "b4"]);
    // A remembered key is still answered from memory; a forgotten one is a new batch.
    assert!(send(&server, "logs", &batch(4, 1), Some("b4")).await.replayed);
    assert!(!send(&server, "logs", &batch(0, 1), Some("b0")).await.replayed);
    assert_eq!(count(&db.path, "logs"), 6);
    assert_eq!(count(&db.path, "batch_keys"), 3);

    // The bound holds across a restart (the keys are in the database).
    let port = server.port;
    server.stop();
    let server = Server::start_on(&db.path, port, &["--remembered-batches", "3"]);
    assert!(send(&server, "logs", &batch(0, 1), Some("b0")).await.replayed, "remembered after a restart");
    assert_eq!(count(&db.path, "logs"), 6);
}
