//! A minimal HTTP/1.1 GET of another server's `/health` on loopback, used to
//! tell whether a busy port belongs to another gasoline.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub async fn health(port: u16) -> Option<Value> {
    let fetch = async {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.ok()?;
        let request = format!("GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut response = Vec::new();
        stream.take(1 << 20).read_to_end(&mut response).await.ok()?;
        let text = String::from_utf8_lossy(&response);
        let (_, body) = text.split_once("\r\n\r\n")?;
        serde_json::from_str(body.trim()).ok()
    };
    tokio::time::timeout(Duration::from_secs(2), fetch).await.ok().flatten()
}
