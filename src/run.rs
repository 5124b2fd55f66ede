//! The two ways to run: `serve` (HTTP only) and `mcp` (stdio MCP plus HTTP),
//! and the shutdown both share: stop taking requests, finish those in flight,
//! commit, checkpoint the WAL, exit.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::http::serve::Listener;
use rmcp::{ServerHandler, ServiceExt};
use tokio_util::sync::CancellationToken;

use crate::attach::Attached;
use crate::cli::{PairArgs, ServeArgs, default_db_path};
use crate::ingest::Limits;
use crate::mcp::GasolineMcp;
use crate::store::{OpenOptions, ServeLock, Store, StoreError, serve_lock, sql};
use crate::viewer::Address;

/// How long in-flight HTTP requests get to finish at shutdown.
const DRAIN: Duration = Duration::from_secs(5);
/// How often `mcp`, attached to another gasoline, tries to take the port over.
const TAKE_OVER_EVERY: Duration = Duration::from_millis(250);

/// Why `gasoline` could not start or stop cleanly: one line for the user.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Command(#[from] crate::commands::CommandError),
    #[error("no data directory on this platform; pass --db PATH")]
    NoDataDirectory,
    #[error("cannot create {}: {source}", dir.display())]
    CreateDirectory { dir: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("port {0} on 127.0.0.1 is already in use (another gasoline?); stop it or pass --port")]
    PortInUse(u16),
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Listen { port: u16, source: std::io::Error },
    #[error("cannot install signal handlers: {0}")]
    Signals(std::io::Error),
    #[error("HTTP server failed: {0}")]
    Http(std::io::Error),
    #[error("MCP over stdio failed to start: {0}")]
    McpStart(String),
    #[error("cannot write to stdout: {0}")]
    Stdout(std::io::Error),
}

fn store_options(args: &ServeArgs) -> OpenOptions {
    OpenOptions {
        capacities: args.capacities.clone(),
        remembered_batches: args.remembered_batches,
        ..OpenOptions::default()
    }
}

/// Opens the store at `path` to write it, as its one server (the lock says so to other
/// processes, with `port`), and records the extension given by `--extension-id` as the paired one.
async fn open_store(args: &ServeArgs, path: &Path, port: Option<u16>) -> Result<(Store, ServeLock), RunError> {
    let lock = ServeLock::acquire(path, port)?;
    let store = open_path(path, &store_options(args))?;
    pair_from_args(&store, args).await?;
    Ok((store, lock))
}

async fn pair_from_args(store: &Store, args: &ServeArgs) -> Result<(), RunError> {
    if let Some(id) = &args.extension_id {
        store.set_setting(sql::EXTENSION_ID, Some(id.clone())).await?;
        tracing::info!("paired with extension {id} (--extension-id); other extensions are refused");
    }
    Ok(())
}

fn open_path(path: &Path, options: &OpenOptions) -> Result<Store, RunError> {
    tracing::info!("database: {}", path.display());
    Ok(Store::open(path, options)?)
}

/// The database file of `--db`, or the default one (its directory created), made absolute.
fn db_path(db: Option<&std::path::Path>) -> Result<PathBuf, RunError> {
    let path = match db {
        Some(p) => p.to_path_buf(),
        None => {
            let p = default_db_path().ok_or(RunError::NoDataDirectory)?;
            if let Some(dir) = p.parent() {
                crate::store::create_private_dir(dir, true)
                    .map_err(|source| RunError::CreateDirectory { dir: dir.to_path_buf(), source })?;
            }
            p
        }
    };
    Ok(std::path::absolute(&path).unwrap_or(path))
}

fn http_options(args: &ServeArgs) -> crate::http::Options {
    crate::http::Options {
        limits: Limits { body_cap: args.body_cap, field_cap: args.field_cap, ..Limits::default() },
        extension_id: args.extension_id.clone(),
        session_keep_alive: Duration::from_secs(args.mcp_session_keep_alive.max(1)),
    }
}

/// Serves HTTP until `stop` is cancelled, then drains for at most [`DRAIN`]; `viewer`
/// says from the start on where the viewer is served (observe answers over stdio link to it).
async fn serve_http(
    listener: Listener,
    store: Store,
    args: &ServeArgs,
    stop: CancellationToken,
    viewer: &Address,
) -> Result<(), RunError> {
    let port = listener.local_addr().map_err(RunError::Http)?.port();
    viewer.set(port);
    let app = crate::http::router(store, http_options(args), port, stop.child_token());
    let also = if listener.has_v6() { format!(" and http://[::1]:{port}") } else { String::new() };
    tracing::info!("gasoline listening on http://127.0.0.1:{port}{also} (MCP at /mcp)");
    let server = crate::http::serve::serve(listener, app, stop.clone());
    tokio::select! {
        () = server => Ok(()),
        // Long-lived streams must not hold shutdown hostage.
        () = async { stop.cancelled().await; tokio::time::sleep(DRAIN).await } => Ok(()),
    }
}

/// Installs the SIGINT and SIGTERM handlers at once, before the slow start-up
/// work, so that a signal arriving while the database opens still ends in a
/// clean shutdown rather than the default abrupt exit; `stop` is cancelled
/// when one arrives.
///
/// Also catches SIGXFSZ, whose default action kills the process when a write
/// goes past the file-size limit (`ulimit -f`): caught, the write fails with
/// EFBIG instead, which the store answers as a full disk (507, nothing
/// acknowledged lost), and the server goes on once the limit is raised.
fn cancel_on_signal(stop: CancellationToken) -> Result<(), RunError> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt()).map_err(RunError::Signals)?;
        let mut terminate = signal(SignalKind::terminate()).map_err(RunError::Signals)?;
        let mut too_large = signal(SignalKind::from_raw(libc::SIGXFSZ)).map_err(RunError::Signals)?;
        tokio::spawn(async move {
            while too_large.recv().await.is_some() {
                tracing::warn!("a write went past this process's file-size limit (ulimit -f): refused as a full disk");
            }
        });
        tokio::spawn(async move {
            tokio::select! { _ = interrupt.recv() => {}, _ = terminate.recv() => {} }
            tracing::info!("shutting down");
            stop.cancel();
        });
    }
    #[cfg(not(unix))]
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            tracing::info!("shutting down");
            stop.cancel();
        }
    });
    Ok(())
}

async fn close(store: &Store) -> Result<(), RunError> {
    store.shutdown().await?;
    tracing::info!("stopped cleanly");
    Ok(())
}

pub async fn serve(args: ServeArgs) -> Result<(), RunError> {
    let stop = CancellationToken::new();
    cancel_on_signal(stop.clone())?;
    // The port first: a port in use is said before any database file is made.
    let listener = Listener::bind(args.port).await.map_err(|e| port_error(args.port, e))?;
    let port = listener.local_addr().map_err(RunError::Http)?.port();
    let path = db_path(args.db.as_deref())?;
    // Held until the store is closed: no other gasoline writes the file meanwhile.
    let (store, _lock) = open_store(&args, &path, Some(port)).await?;
    serve_http(listener, store.clone(), &args, stop, &Address::default()).await?;
    close(&store).await
}

fn port_error(port: u16, source: std::io::Error) -> RunError {
    if source.kind() == std::io::ErrorKind::AddrInUse {
        RunError::PortInUse(port)
    } else {
        RunError::Listen { port, source }
    }
}

/// What a `gasoline mcp` is to its database file.
enum Role {
    /// It writes the file, and holds the lock that says so.
    Writer(Store, ServeLock),
    /// Another gasoline serves the file (on `owner`, when it has a port): this process reads it.
    Reader { store: Store, owner: Option<u16> },
}

/// The lock of a process that writes its file, once it has one (`mcp` may get it late).
type Lock = Arc<Mutex<Option<ServeLock>>>;

/// `gasoline mcp`: MCP on stdio, and HTTP ingest when the port is free. When another
/// gasoline serves the same file (on this port, or on another one: the file's lock names it),
/// this process attaches to it: it reads the file (`Store::open_reader`), sends its writes to
/// that gasoline (`crate::attach`), and becomes the writer once it has gone.
pub async fn mcp(args: ServeArgs) -> Result<(), RunError> {
    let stop = CancellationToken::new();
    cancel_on_signal(stop.clone())?;
    // Observe answers link to the viewer once one shows this file: ours, or the owner's.
    let viewer = Address::default();
    let path = db_path(args.db.as_deref())?;
    let (role, listener) = match Listener::bind(args.port).await {
        Ok(listener) => {
            let port = listener.local_addr().map_err(RunError::Http)?.port();
            (open_or_attach(&args, &path, Some(port)).await?, Some(listener))
        }
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => match announce_attach(args.port, &path).await {
            Some(port) => (attach(&args, &path, Some(port))?, None),
            None => (open_or_attach(&args, &path, None).await?, None),
        },
        Err(e) => return Err(port_error(args.port, e)),
    };
    let lock: Lock = Arc::default();
    let (store, owner) = match role {
        Role::Writer(store, held) => {
            *lock.lock().unwrap_or_else(PoisonError::into_inner) = Some(held);
            (store, None)
        }
        Role::Reader { store, owner } => {
            if let Some(port) = owner {
                viewer.set(port);
            }
            (store, owner)
        }
    };
    let http = {
        let (store, args, stop, viewer, lock) =
            (store.clone(), args.clone(), stop.clone(), viewer.clone(), lock.clone());
        match listener.filter(|_| store.is_writer()) {
            Some(listener) => {
                // Set before the first MCP call can come; serve_http sets it again.
                if let Ok(address) = listener.local_addr() {
                    viewer.set(address.port());
                }
                tokio::spawn(async move { serve_http(listener, store, &args, stop, &viewer).await })
            }
            // The port the extension sends to: the owner's, when this process reads beside one.
            None => {
                let port = owner.unwrap_or(args.port);
                tokio::spawn(async move { take_over_when_free(store, &args, port, stop, &viewer, &lock).await })
            }
        }
    };
    let outcome = match owner {
        Some(port) => {
            serve_stdio(Attached::new(GasolineMcp::new(store.clone()).with_viewer(viewer), port), &stop).await
        }
        None => serve_stdio(GasolineMcp::new(store.clone()).with_viewer(viewer), &stop).await,
    };
    stop.cancel();
    match http.await {
        Ok(Err(e)) => tracing::warn!("{e}"),
        Ok(Ok(())) => {}
        Err(e) => tracing::warn!("HTTP task failed: {e}"),
    }
    close(&store).await?;
    drop(lock);
    outcome
}

/// Writes the file when no other gasoline serves it; reads it beside the one that does.
async fn open_or_attach(args: &ServeArgs, path: &Path, port: Option<u16>) -> Result<Role, RunError> {
    match open_store(args, path, port).await {
        Ok((store, lock)) => Ok(Role::Writer(store, lock)),
        Err(RunError::Store(StoreError::Served { holder, .. })) => {
            tracing::warn!(
                "{} is served by another gasoline ({holder}): this process serves MCP from it as a reader \
                 (configure changes go to that gasoline), and writes it once that gasoline stops",
                path.display()
            );
            attach(args, path, holder.port)
        }
        Err(e) => Err(e),
    }
}

/// Reads the file another gasoline writes (the one on `owner`, when it has a port).
fn attach(args: &ServeArgs, path: &Path, owner: Option<u16>) -> Result<Role, RunError> {
    tracing::info!("database: {} (read only)", path.display());
    if args.extension_id.is_some() || !args.capacities.is_empty() {
        tracing::warn!(
            "--extension-id and --capacity are not applied now: the gasoline that writes the file keeps its own; \
             they apply if this process takes over writing it"
        );
    }
    Ok(Role::Reader { store: Store::open_reader(path, &store_options(args))?, owner })
}

/// Without the port, or without the file: tries every [`TAKE_OVER_EVERY`] to bind `port` (the
/// one the gasoline that serves the file listens on, else `--port`) and, unless this process
/// writes the file already, to take its lock; once both are free (the gasoline that had them
/// has gone), writes the file (migrated, `--capacity` and `--extension-id` applied) and
/// ingests on that port (the extension's next retry lands).
async fn take_over_when_free(
    store: Store,
    args: &ServeArgs,
    port: u16,
    stop: CancellationToken,
    viewer: &Address,
    lock: &Lock,
) -> Result<(), RunError> {
    loop {
        tokio::select! {
            () = stop.cancelled() => return Ok(()),
            () = tokio::time::sleep(TAKE_OVER_EVERY) => {}
        }
        let writing = lock.lock().unwrap_or_else(PoisonError::into_inner).is_some();
        if !writing && serve_lock::holder(store.path()).is_some() {
            continue;
        }
        let listener = match Listener::bind(port).await {
            Ok(listener) => listener,
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => continue,
            Err(e) => {
                tracing::debug!("port {port} still unavailable: {e}");
                continue;
            }
        };
        let bound = listener.local_addr().map_err(RunError::Http)?.port();
        {
            let mut held = lock.lock().unwrap_or_else(PoisonError::into_inner);
            match held.as_mut() {
                Some(mine) => mine.announce(bound),
                None => match ServeLock::acquire(store.path(), Some(bound)) {
                    Ok(mine) => *held = Some(mine),
                    // Another process took the file first: keep reading beside it.
                    Err(StoreError::Served { .. }) => continue,
                    Err(e) => return Err(e.into()),
                },
            }
        }
        // Writing the file already, this process waited for the port alone, held by another
        // program; else for the gasoline that wrote the file (and, mostly, held the port) to go.
        if writing {
            tracing::warn!(
                "port {port} is free again: this process takes over ingest from another program that held it"
            );
        } else {
            tracing::warn!(
                "port {port} is free again and no gasoline writes {}: this process takes over ingest from the gasoline \
                 that served it",
                store.path().display()
            );
        }
        if !store.is_writer() {
            let (writer, options) = (store.clone(), store_options(args));
            tokio::task::spawn_blocking(move || writer.become_writer(&options))
                .await
                .map_err(|e| StoreError::Invalid(format!("opening the database to write failed: {e}")))??;
            pair_from_args(&store, args).await?;
            tracing::info!("this process now writes {}", store.path().display());
        }
        return serve_http(listener, store, args, stop, viewer).await;
    }
}

/// `gasoline pair`: shows the paired extension, or with `--reset` forgets it.
pub async fn pair(args: PairArgs) -> Result<(), RunError> {
    // The database of the gasoline running on the port (without --db), as the other commands
    // find it; no database, no pairing to show or forget: like tail and status, make none.
    let path = crate::commands::db_path(&args.db, &args.port).await?;
    if !path.exists() {
        return Err(StoreError::NotFound(path).into());
    }
    if !args.reset {
        // Shown from a read: nothing written, nothing migrated.
        let conn = crate::store::open_read_only(&path)?;
        let said = match sql::paired_extension(&conn)? {
            Some(id) => format!("paired with extension {id} (chrome-extension://{id})"),
            None => "no extension paired yet: the first extension to connect will be trusted".to_owned(),
        };
        return crate::commands::say(&said).map_err(RunError::Stdout);
    }
    let store = open_path(&path, &OpenOptions::default())?;
    let paired = store.read(sql::paired_extension).await?;
    let said = {
        store.set_setting(sql::EXTENSION_ID, None).await?;
        match &paired {
            Some(id) => format!(
                "forgot extension {id}: the next extension to connect will be trusted \
                 (a running gasoline notices within a second; one started with --extension-id keeps that id)"
            ),
            None => "no extension was paired: the next extension to connect will be trusted".to_owned(),
        }
    };
    store.shutdown().await?;
    crate::commands::say(&said).map_err(RunError::Stdout)
}

/// Serves MCP over stdin/stdout until stdin closes or `stop` is cancelled.
/// Every line of stdin is checked on its way to rmcp (`mcp::stdio`); what is written for
/// stdout is all written before this returns.
async fn serve_stdio(handler: impl ServerHandler, stop: &CancellationToken) -> Result<(), RunError> {
    let crate::mcp::stdio::Wired { reader, writer, written } = crate::mcp::stdio::transport();
    let served = async {
        let service = tokio::select! {
            started = handler.serve((reader, writer)) => match started {
                Ok(service) => service,
                // A client that leaves before `initialize` is a normal end, not a failure.
                Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
                    tracing::info!("stdin closed before the MCP client initialized; shutting down");
                    return Ok(());
                }
                Err(e) => return Err(RunError::McpStart(e.to_string())),
            },
            () = stop.cancelled() => return Ok(()),
        };
        tokio::select! {
            _ = service.waiting() => tracing::info!("stdin closed; shutting down"),
            () = stop.cancelled() => {}
        }
        Ok(())
    };
    let result = served.await;
    // rmcp has dropped its writer: the answers and refusals still on their way reach stdout.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), written).await;
    result
}

/// The port is taken: says by whom, and answers the port when a gasoline there writes
/// `db` (this process then attaches to it as a reader of the file).
async fn announce_attach(port: u16, db: &std::path::Path) -> Option<u16> {
    match crate::commands::server::find(port, db).await {
        Some(owner) if owner.same_db => {
            tracing::warn!(
                "port {port} is served by another gasoline (database {}); it ingests and writes the file, this \
                 process serves MCP from it as a reader (configure changes go to that gasoline), and takes the \
                 port over if it frees up",
                owner.db
            );
            Some(port)
        }
        Some(owner) => {
            tracing::warn!(
                "port {port} is served by another gasoline that writes a different database ({}): new events will \
                 not show up here; this process serves MCP from {} and takes the port over if it frees up",
                owner.db,
                db.display()
            );
            None
        }
        None => {
            tracing::warn!(
                "port {port} is used by another program: no ingest in this process until it frees up; serving MCP \
                 from {}",
                db.display()
            );
            None
        }
    }
}
