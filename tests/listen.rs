//! Where the server listens: the loopback addresses only, 127.0.0.1 and, where the machine has
//! an IPv6 loopback, [::1] on the same port (a client given `http://localhost:7890` reaches it
//! whichever address its resolver puts first). [::1] is a courtesy: without it, or with its port
//! taken there by another program, the server serves on 127.0.0.1 alone.

mod common;

use common::{Server, TempDb};
use serde_json::Value;

/// Whether this machine can listen on [::1] at all.
fn has_ipv6_loopback() -> bool {
    std::net::TcpListener::bind("[::1]:0").is_ok()
}

async fn health(host: &str, port: u16) -> Result<(u16, Value), reqwest::Error> {
    let response = reqwest::get(format!("http://{host}:{port}/health")).await?;
    let status = response.status().as_u16();
    Ok((status, response.json().await.unwrap_or(Value::Null)))
}

#[tokio::test]
async fn the_server_answers_on_both_loopback_addresses() {
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let (status, v4) = health("127.0.0.1", server.port).await.expect("127.0.0.1 answers");
    assert_eq!(status, 200, "{v4}");
    let v6 = health("[::1]", server.port).await;
    if has_ipv6_loopback() {
        let (status, v6) = v6.expect("[::1] answers");
        assert_eq!(status, 200, "{v6}");
        assert_eq!(v6["db"], v4["db"], "the same server");
        // The guard holds there as on 127.0.0.1: a Host that is no loopback name is refused.
        let forged = reqwest::Client::new()
            .get(format!("http://[::1]:{}/health", server.port))
            .header("host", format!("evil.example:{}", server.port))
            .send()
            .await
            .expect("an answer");
        assert_eq!(forged.status().as_u16(), 403);
        let said = server.stderr.lock().expect("stderr").join("\n");
        assert!(said.contains(&format!("and http://[::1]:{}", server.port)), "it says so: {said}");
    } else {
        assert!(v6.is_err(), "no IPv6 loopback here, yet [::1] answered: {v6:?}");
    }
    server.stop();
}

#[tokio::test]
async fn a_port_taken_on_ipv6_alone_leaves_the_server_on_127_0_0_1() {
    // Another program holds [::1] on a port that is free on 127.0.0.1.
    let (held, port) = match std::net::TcpListener::bind("[::1]:0") {
        Ok(held) => {
            let port = held.local_addr().expect("an address").port();
            (Some(held), port)
        }
        Err(_) => (None, 0),
    };
    let db = TempDb::new();
    let server = Server::start_on(&db.path, port, &[]);
    let (status, _) = health("127.0.0.1", server.port).await.expect("127.0.0.1 answers");
    assert_eq!(status, 200);
    if held.is_some() {
        assert_eq!(server.port, port);
        let said = server.stderr.lock().expect("stderr").join("\n");
        assert!(!said.contains("http://[::1]"), "[::1] is not claimed: {said}");
    }
    drop(held);
    server.stop();
}
