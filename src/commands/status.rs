//! `gasoline status`: the server, the database file, every ring, the tabs seen,
//! the paired extension and the capture state it reported. Read-only; the same ring counts as
//! `configure action=status`, whether or not a server runs.

use std::path::Path;

use chrono::{DateTime, Local};
use rusqlite::Connection;
use serde::Serialize;
use serde_json::{Value, json};

use super::server::{self, Running};
use super::{CommandError, db_path, open_reader};
use crate::cli::StatusArgs;
use crate::query::Snapshot;
use crate::query::rows::{self, Ring, TabSeen};
use crate::store::sql;

/// The settings key the paired extension's id is kept under.
pub const EXTENSION_ID: &str = "extension_id";

#[derive(Debug, Serialize)]
struct Status {
    server: Option<Running>,
    db: String,
    db_bytes: u64,
    wal_bytes: u64,
    tracked_tab_id: Option<i64>,
    extension_id: Option<String>,
    /// The capture state the extension last reported (as `configure action=status` shows it).
    capture: Option<Value>,
    kinds: Vec<Ring>,
    tabs: Vec<TabSeen>,
}

pub async fn status(args: StatusArgs) -> Result<(), CommandError> {
    let path = db_path(&args.db, &args.port).await?;
    let conn = open_reader(&path)?;
    let server = server::serving(args.port.port(), &path).await;
    let status = read(&conn, &path, server)?;
    let text = if args.json {
        format!("{}\n", crate::printable::json(&json!(status).to_string()))
    } else {
        // What other programs said (a server's /health, the extension's capture patterns) is
        // shown, never obeyed: every line printable, tab URLs among them.
        human(&status).lines().map(|line| format!("{}\n", crate::printable::printable(line))).collect()
    };
    super::print(&text).map_err(CommandError::Stdout)
}

fn read(conn: &Connection, path: &Path, server: Option<Running>) -> Result<Status, CommandError> {
    let _snapshot = Snapshot::begin(conn)?;
    let kinds = rows::rings(conn)?;
    let (db_bytes, wal_bytes) = crate::store::file_bytes(path);
    Ok(Status {
        server,
        db: path.display().to_string(),
        db_bytes,
        wal_bytes,
        tracked_tab_id: sql::tracked_tab(conn)?,
        extension_id: sql::setting(conn, EXTENSION_ID)?,
        capture: capture(conn)?,
        kinds,
        tabs: rows::tabs(conn)?,
    })
}

/// The capture report with its time, or None; a database that no server of this
/// version has opened yet has no capture table, and so no report.
fn capture(conn: &Connection) -> Result<Option<Value>, CommandError> {
    let exists: bool = conn
        .query_row("SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'capture')", [], |r| {
            r.get(0)
        })
        .map_err(crate::store::StoreError::from)?;
    if !exists {
        return Ok(None);
    }
    // Shortened as configure action=status shows it: a scope of a thousand sites is counted.
    Ok(sql::capture(conn)?.and_then(|(state, at)| crate::query::capture::for_status(&state, at)))
}

fn when(ts: Option<i64>) -> String {
    ts.and_then(DateTime::from_timestamp_millis)
        .map_or_else(|| "-".into(), |t| t.with_timezone(&Local).format("%Y-%m-%d %H:%M:%S").to_string())
}

fn bytes(n: u64) -> String {
    indicatif::HumanBytes(n).to_string()
}

/// `http://localhost/*, https://shop.example/* (paused), deep view of tabs 412, 415, reported
/// 2026-11-24 10:00:00`.
fn capture_line(capture: Option<&Value>) -> String {
    let Some(c) = capture else { return "not reported by the extension yet".into() };
    let origins: Vec<&str> =
        c["origins"].as_array().map_or_else(Vec::new, |o| o.iter().filter_map(Value::as_str).collect());
    let mut scope = if origins.is_empty() { "no sites".to_owned() } else { origins.join(", ") };
    if let Some(more) = c["origins_omitted"].as_u64() {
        scope.push_str(&format!(" and {more} more"));
    }
    let paused = if c["paused"] == true { " (paused)" } else { "" };
    let deep: Vec<String> = c["deep_tabs"]
        .as_array()
        .map_or_else(Vec::new, |t| t.iter().filter_map(Value::as_i64).map(|t| t.to_string()).collect());
    let deep = match deep.len() {
        0 => String::new(),
        1 => format!(", deep view of tab {}", deep[0]),
        _ => format!(", deep view of tabs {}", deep.join(", ")),
    };
    format!("{scope}{paused}{deep}, reported {}", when(c["reported_at"].as_i64()))
}

fn human(s: &Status) -> String {
    let mut out = String::new();
    let server = match &s.server {
        Some(r) if r.same_db => {
            format!("listening on 127.0.0.1:{} (gasoline {}), writing this database", r.port, r.version)
        }
        Some(r) => {
            format!("a gasoline {} listens on 127.0.0.1:{} but writes another database: {}", r.version, r.port, r.db)
        }
        None => "not running (no gasoline answers on the port)".into(),
    };
    out.push_str(&format!("server:    {server}\n"));
    out.push_str(&format!("database:  {} ({}, WAL {})\n", s.db, bytes(s.db_bytes), bytes(s.wal_bytes)));
    out.push_str(&format!(
        "extension: {}\n",
        s.extension_id.as_deref().map_or_else(|| "not paired".to_owned(), |id| format!("paired ({id})"))
    ));
    out.push_str(&format!("capture:   {}\n", capture_line(s.capture.as_ref())));
    if let Some(tab) = s.tracked_tab_id {
        out.push_str(&format!("tracking:  tab {tab}\n"));
    }
    out.push_str(&format!(
        "\n{:<18} {:>8} {:>9} {:>10} {:>10}  {:<19}  {}\n",
        "kind", "count", "capacity", "oldest id", "newest id", "oldest", "newest"
    ));
    for r in &s.kinds {
        let id = |i: Option<i64>| i.map_or_else(|| "-".into(), |i| i.to_string());
        out.push_str(&format!(
            "{:<18} {:>8} {:>9} {:>10} {:>10}  {:<19}  {}\n",
            r.stats.kind,
            r.stats.count,
            r.stats.capacity,
            id(r.stats.oldest_id),
            id(r.stats.newest_id),
            when(r.oldest_ts),
            when(r.newest_ts)
        ));
    }
    if s.tabs.is_empty() {
        out.push_str("\nno tabs seen yet\n");
    } else {
        // As wide as the widest tab id (Chrome's run to ten digits in a long session).
        let width = s.tabs.iter().map(|t| t.tab_id.to_string().len()).max().unwrap_or(0).max(8);
        out.push_str(&format!("\n{:>width$}  {:<19}  url\n", "tab", "last event"));
        for t in &s.tabs {
            out.push_str(&format!(
                "{:>width$}  {:<19}  {}\n",
                t.tab_id,
                when(t.last_event_ts),
                t.url.as_deref().unwrap_or("-")
            ));
        }
    }
    out
}
