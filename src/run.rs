//! The two ways to run: `serve` (HTTP only) and `mcp` (stdio MCP plus HTTP),
//! and the shutdown both share: stop taking requests, finish those in flight,
//! commit, checkpoint the WAL, exit.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use rmcp::ServiceExt;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::cli::{ServeArgs, default_db_path};
use crate::ingest::Limits;
use crate::mcp::GasolineMcp;
use crate::store::{OpenOptions, Store};

/// How long in-flight HTTP requests get to finish at shutdown.
const DRAIN: Duration = Duration::from_secs(5);

/// Opens the store named by the arguments (creating the default directory).
fn open_store(args: &ServeArgs) -> Result<Store, String> {
    let path = match &args.db {
        Some(p) => p.clone(),
        None => {
            let p = default_db_path()?;
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
            p
        }
    };
    let path = std::path::absolute(&path).unwrap_or(path);
    let options = OpenOptions { capacities: args.capacities.clone(), ..OpenOptions::default() };
    let store = Store::open(&path, &options).map_err(|e| e.to_string())?;
    tracing::info!("database: {}", path.display());
    Ok(store)
}

fn limits(args: &ServeArgs) -> Limits {
    Limits { body_cap: args.body_cap, field_cap: args.field_cap, ..Limits::default() }
}

async fn bind(port: u16) -> std::io::Result<TcpListener> {
    TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await
}

/// Serves HTTP until `stop` is cancelled, then drains for at most [`DRAIN`].
async fn serve_http(
    listener: TcpListener,
    store: Store,
    args: &ServeArgs,
    stop: CancellationToken,
) -> Result<(), String> {
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let app = crate::http::router(store, limits(args), port, stop.child_token());
    tracing::info!("gasoline listening on http://127.0.0.1:{port} (MCP at /mcp)");
    let graceful = stop.clone();
    let server = axum::serve(listener, app).with_graceful_shutdown(async move { graceful.cancelled().await });
    tokio::select! {
        result = server => result.map_err(|e| format!("HTTP server failed: {e}")),
        // Long-lived streams must not hold shutdown hostage.
        () = async { stop.cancelled().await; tokio::time::sleep(DRAIN).await } => Ok(()),
    }
}

/// Resolves on SIGINT or SIGTERM.
async fn signalled() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! { _ = ctrl_c => {}, _ = term.recv() => {} }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

async fn close(store: &Store) -> Result<(), String> {
    store.shutdown().await.map_err(|e| format!("shutdown: {e}"))?;
    tracing::info!("stopped cleanly");
    Ok(())
}

pub async fn serve(args: ServeArgs) -> Result<(), String> {
    let store = open_store(&args)?;
    let listener = bind(args.port).await.map_err(|e| port_error(args.port, &e))?;
    let stop = CancellationToken::new();
    let on_signal = stop.clone();
    tokio::spawn(async move {
        signalled().await;
        tracing::info!("shutting down");
        on_signal.cancel();
    });
    serve_http(listener, store.clone(), &args, stop).await?;
    close(&store).await
}

fn port_error(port: u16, e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::AddrInUse {
        format!("port {port} on 127.0.0.1 is already in use (another gasoline?); stop it or pass --port")
    } else {
        format!("cannot listen on 127.0.0.1:{port}: {e}")
    }
}

pub async fn mcp(args: ServeArgs) -> Result<(), String> {
    let store = open_store(&args)?;
    let stop = CancellationToken::new();
    let http = match bind(args.port).await {
        Ok(listener) => {
            let (store, args, stop) = (store.clone(), args.clone(), stop.clone());
            Some(tokio::spawn(async move { serve_http(listener, store, &args, stop).await }))
        }
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            announce_attach(args.port, store.path().to_path_buf()).await;
            None
        }
        Err(e) => return Err(port_error(args.port, &e)),
    };
    let service = GasolineMcp::new(store.clone())
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("MCP over stdio failed to start: {e}"))?;
    tokio::select! {
        _ = service.waiting() => tracing::info!("stdin closed; shutting down"),
        () = signalled() => tracing::info!("shutting down"),
    }
    stop.cancel();
    if let Some(http) = http {
        let _ = http.await;
    }
    close(&store).await
}

/// The port is taken: say by whom, and serve MCP from the database file anyway.
async fn announce_attach(port: u16, db: PathBuf) {
    match crate::probe::health(port).await {
        Some(health) if health.get("service").and_then(|s| s.as_str()) == Some("gasoline") => {
            let theirs = health.get("db").and_then(|d| d.as_str()).unwrap_or("?");
            tracing::warn!(
                "port {port} is served by another gasoline (database {theirs}); it ingests, this process serves MCP \
                 from {} as a reader of the same file",
                db.display()
            );
            if std::path::Path::new(theirs) != db {
                tracing::warn!("the other gasoline writes to a different database: new events will not show up here");
            }
        }
        _ => tracing::warn!(
            "port {port} is used by another program: no ingest in this process; serving MCP from {}",
            db.display()
        ),
    }
}
