//! Serving the router's connections: what `axum::serve` does, plus a deadline for a connection's
//! first bytes and a request's headers, and pings for idle HTTP/2 connections. axum's `serve`
//! gives hyper no timer, so a client that sent one header line a second held its connection (and
//! a file descriptor) for as long as it liked; the body already has its own deadline (`body.rs`). Graceful: once `stop` is cancelled no connection is accepted, each
//! open one ends after its request in flight, and this returns when all have ended.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The server's sockets: 127.0.0.1 on its port, and [::1] on the same port where the machine has
/// an IPv6 loopback, so that a client given `http://localhost:7890` reaches it whichever address
/// its resolver puts first (macOS and many Linux systems say ::1 first, and a client that tries
/// only the first address would be refused). Loopback only, either way.
#[derive(Debug)]
pub struct Listener {
    v4: TcpListener,
    v6: Option<TcpListener>,
}

impl Listener {
    /// Binds 127.0.0.1:`port` (0: a port the system chooses), which decides whether the port is
    /// free, then [::1] on the port it got, if it can.
    pub async fn bind(port: u16) -> std::io::Result<Listener> {
        let v4 = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
        let port = v4.local_addr()?.port();
        let v6 = match TcpListener::bind(SocketAddr::from((Ipv6Addr::LOCALHOST, port))).await {
            Ok(v6) => Some(v6),
            Err(e) => {
                // No IPv6 on this machine (a container without it), or the port taken there by
                // another program: 127.0.0.1 serves alone.
                tracing::debug!("not listening on [::1]:{port}: {e}");
                None
            }
        };
        Ok(Listener { v4, v6 })
    }

    /// The 127.0.0.1 address (the port is the same on both).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.v4.local_addr()
    }

    /// Whether [::1] is served too.
    pub fn has_v6(&self) -> bool {
        self.v6.is_some()
    }

    async fn accept(&self) -> std::io::Result<tokio::net::TcpStream> {
        match &self.v6 {
            None => self.v4.accept().await.map(|(stream, _)| stream),
            Some(v6) => tokio::select! {
                accepted = self.v4.accept() => accepted.map(|(stream, _)| stream),
                accepted = v6.accept() => accepted.map(|(stream, _)| stream),
            },
        }
    }
}

/// How long a client may take to send a request's line and headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How often an idle HTTP/2 connection is pinged, and how long its answer may take.
const H2_PING_EVERY: Duration = Duration::from_secs(20);
const H2_PING_TIMEOUT: Duration = Duration::from_secs(10);

/// HTTP/2's connection preface, which the auto builder reads whole before it decides.
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Whether the client sent what tells HTTP/1 from HTTP/2 (a first byte, or HTTP/2's whole
/// preface when it begins like it) within `deadline`; false once it closed or fell silent.
async fn speaks_within(stream: &tokio::net::TcpStream, deadline: Duration) -> bool {
    let mut seen = [0u8; 24];
    let decided = async {
        loop {
            let n = match stream.peek(&mut seen).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => n,
            };
            if n == seen.len() || seen[..n] != H2_PREFACE[..n] {
                return true;
            }
            // Part of the preface: peek answers at once while those bytes wait, so look again shortly.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(deadline, decided).await.unwrap_or(false)
}

/// Serves `app` on `listener` until `stop` is cancelled and the open connections have ended.
pub async fn serve(listener: Listener, app: Router, stop: CancellationToken) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(stream) => stream,
                Err(e) => {
                    // Out of file descriptors, say: wait a little rather than spin.
                    tracing::warn!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        // A streamed answer (MCP over SSE) leaves as its headers, then its body: with Nagle's
        // algorithm on, the body's small write waits for the client's delayed ACK, about 40 ms
        // an answer. A loopback peer gains nothing from the coalescing.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY: {e}");
        }
        let service = TowerToHyperService::new(app.clone());
        let stop = stop.clone();
        connections.spawn(async move {
            // hyper's header deadline starts at a request's first byte, and before that the
            // auto builder waits for bytes to tell HTTP/1 from HTTP/2 with no deadline at all: a
            // connection that sends nothing would be held (and its file descriptor) for ever.
            if !speaks_within(&stream, HEADER_READ_TIMEOUT).await {
                return;
            }
            let mut builder = Builder::new(TokioExecutor::new());
            builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
            // An HTTP/2 peer that answers no ping is gone: its connection ends.
            builder
                .http2()
                .timer(TokioTimer::new())
                .keep_alive_interval(H2_PING_EVERY)
                .keep_alive_timeout(H2_PING_TIMEOUT);
            let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                () = stop.cancelled() => connection.as_mut().graceful_shutdown(),
            }
            let _ = connection.await;
        });
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}
