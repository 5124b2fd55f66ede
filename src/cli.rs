//! Command-line arguments. Parsing only; `run` (the servers) and `commands`
//! (the tools for people) do the work.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::kind::{self, Kind};

#[derive(Debug, Parser)]
#[command(
    name = "gasoline",
    version,
    about = "Local browser-telemetry store for AI coding agents.\n\
The Gasoline extension POSTs what your pages do to this server; agents read it over MCP."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server: ingest from the extension, and MCP over streamable HTTP at /mcp.
    Serve(ServeArgs),
    /// Run an MCP server on stdio (what MCP clients spawn), with the HTTP server beside it.
    Mcp(ServeArgs),
    /// Print the last entries (logs, errors and failed requests by default), and follow with -f.
    Tail(TailArgs),
    /// Show the server, the database, every ring, the tabs seen and the paired extension.
    Status(StatusArgs),
    /// Write the capture to a file: HAR 1.2 of the network (--har) or every entry as JSONL (--jsonl).
    Export(ExportArgs),
    /// Delete captured entries of one kind or all (through the running server when there is one).
    Clear(ClearArgs),
    /// Show which browser extension gasoline is paired with; --reset forgets it.
    Pair(PairArgs),
    /// Print every kind with the fields it declares and its columns, as JSON (for the extension's tests).
    Kinds,
}

#[derive(Debug, Args, Clone)]
pub struct PairArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub port: PortArgs,
    /// Forget the paired extension: the next extension to connect is trusted.
    #[arg(long)]
    pub reset: bool,
}

/// The database a person-facing command reads.
#[derive(Debug, Args, Clone)]
pub struct DbArgs {
    /// Database file [default: $GASOLINE_DB, else gasoline.db in the platform data directory].
    #[arg(long, env = "GASOLINE_DB")]
    pub db: Option<PathBuf>,
}

/// The port `serve` listens on, and where the other commands look for it, unless told otherwise.
pub const DEFAULT_PORT: u16 = 7890;

/// Where a running server would listen.
#[derive(Debug, Args, Clone)]
pub struct PortArgs {
    /// Port of a running gasoline on 127.0.0.1; without --db, the database it serves is the one
    /// read [default: 7890].
    #[arg(long, env = "GASOLINE_PORT")]
    pub port: Option<u16>,
}

impl PortArgs {
    /// The port given, else the one `serve` listens on by default.
    pub fn port(&self) -> u16 {
        self.port.unwrap_or(DEFAULT_PORT)
    }
}

#[derive(Debug, Args, Clone)]
pub struct TailArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub port: PortArgs,
    /// Kinds to show (errors = logs at level error) [default: logs, and failed requests' network_waterfall rows].
    #[arg(value_name = "KIND", value_parser = parse_tail_kind)]
    pub kinds: Vec<TailKind>,
    /// Only this Chrome tab.
    #[arg(long, allow_negative_numbers = true)]
    pub tab: Option<i64>,
    /// Only console entries at this level or more severe (debug, log, info, warn, error) [default view: log]; failed requests show whatever it is.
    #[arg(long, value_parser = parse_level)]
    pub level: Option<&'static str>,
    /// Only entries whose URL contains this text.
    #[arg(long)]
    pub url: Option<String>,
    /// Only requests with at least this HTTP status.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(0..1000))]
    pub status_min: Option<i64>,
    /// Only failed requests: an error from the browser or the page, or a status of 400 or
    /// more (a status of 0 or none without an error is unknown, not failed) [kinds default
    /// to network_waterfall: every request has its row there, one line a request; name
    /// network_bodies for the bodies].
    #[arg(long)]
    pub failed: bool,
    /// How many entries to print (the newest).
    #[arg(short = 'n', long = "lines", default_value_t = 20, allow_negative_numbers = true)]
    pub lines: usize,
    /// Keep printing new entries as they arrive, until Ctrl-C.
    #[arg(short = 'f', long)]
    pub follow: bool,
    /// One JSON object per line, with every field.
    #[arg(long)]
    pub json: bool,
}

/// A kind as `tail` names it: a ring, or the `errors` view of logs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TailKind {
    pub kind: &'static Kind,
    pub errors_only: bool,
}

fn parse_tail_kind(s: &str) -> Result<TailKind, String> {
    if s == "errors" {
        return Ok(TailKind { kind: &kind::LOGS, errors_only: true });
    }
    kind::named(s, &["errors"]).map(|kind| TailKind { kind, errors_only: false }).map_err(|e| e.to_string())
}

fn parse_level(s: &str) -> Result<&'static str, String> {
    kind::LEVELS
        .iter()
        .copied()
        .find(|l| *l == s)
        .ok_or_else(|| format!("unknown level \"{s}\"; levels: {}", kind::LEVELS.join(", ")))
}

#[derive(Debug, Args, Clone)]
pub struct StatusArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub port: PortArgs,
    /// The status as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args, Clone)]
#[command(group(clap::ArgGroup::new("format").required(true).args(["har", "jsonl"])))]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub port: PortArgs,
    /// Write a HAR 1.2 file of the network capture ("-" = stdout).
    #[arg(long, value_name = "FILE")]
    pub har: Option<PathBuf>,
    /// Write every entry as one JSON object per line ("-" = stdout).
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Kinds for --jsonl [default: all].
    #[arg(value_name = "KIND", value_parser = parse_kind)]
    pub kinds: Vec<&'static Kind>,
    /// Only this Chrome tab.
    #[arg(long, allow_negative_numbers = true)]
    pub tab: Option<i64>,
    /// Only entries at or after this time: RFC 3339 (2026-11-23T18:00:00Z), epoch milliseconds, or an age (10m, 2h, 1d).
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub since: Option<String>,
    /// Only entries whose URL contains this text.
    #[arg(long)]
    pub url: Option<String>,
}

fn parse_kind(s: &str) -> Result<&'static Kind, String> {
    kind::named(s, &[]).map_err(|e| e.to_string())
}

#[derive(Debug, Args, Clone)]
pub struct ClearArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub port: PortArgs,
    /// The kind to clear, or all.
    #[arg(value_name = "KIND|all", default_value = "all", value_parser = parse_clear_target)]
    pub what: ClearTarget,
}

/// What `clear` deletes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClearTarget {
    All,
    One(&'static Kind),
}

impl ClearTarget {
    pub fn name(&self) -> &'static str {
        match self {
            ClearTarget::All => "all",
            ClearTarget::One(kind) => kind.name,
        }
    }
}

fn parse_clear_target(s: &str) -> Result<ClearTarget, String> {
    if s == "all" {
        return Ok(ClearTarget::All);
    }
    kind::named(s, &["all"]).map(ClearTarget::One).map_err(|e| e.to_string())
}

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one; the chosen port is logged).
    #[arg(long, default_value_t = DEFAULT_PORT, env = "GASOLINE_PORT")]
    pub port: u16,
    /// Database file [default: $GASOLINE_DB, else gasoline.db in the platform data directory].
    #[arg(long, env = "GASOLINE_DB")]
    pub db: Option<PathBuf>,
    /// Ring capacity of a kind, e.g. --capacity logs=500 (repeatable; stored in the database).
    #[arg(long = "capacity", value_name = "KIND=N", value_parser = parse_capacity)]
    pub capacities: Vec<(&'static Kind, i64)>,
    /// Longest string kept in a body field (requestBody, responseBody...), in bytes.
    #[arg(long, default_value_t = 64 * 1024, allow_negative_numbers = true)]
    pub body_cap: usize,
    /// Longest string kept in any other field, in bytes.
    #[arg(long, default_value_t = 16 * 1024, allow_negative_numbers = true)]
    pub field_cap: usize,
    /// Batch keys (Idempotency-Key) remembered: a batch sent again under one of the
    /// newest this many keys gets its first answer and is not stored twice.
    #[arg(long, default_value_t = crate::store::batch_keys::DEFAULT_REMEMBERED,
          value_parser = clap::value_parser!(i64).range(1..))]
    pub remembered_batches: i64,
    /// The one browser extension accepted (its id, as in chrome-extension://ID)
    /// [default: the paired one, else the first to connect].
    #[arg(long, env = "GASOLINE_EXTENSION_ID", value_parser = parse_extension_id)]
    pub extension_id: Option<String>,
    /// Seconds an MCP session over HTTP is kept without a request (a day; shorter in tests).
    #[arg(long, env = "GASOLINE_MCP_SESSION_KEEP_ALIVE", default_value_t = 86_400, hide = true)]
    pub mcp_session_keep_alive: u64,
}

fn parse_extension_id(s: &str) -> Result<String, String> {
    let id = s.trim().trim_start_matches("chrome-extension://").trim_end_matches('/');
    if crate::http::valid_extension_id(id) {
        Ok(id.to_owned())
    } else {
        Err(format!("\"{s}\" is not an extension id (32 letters from a to p, as chrome://extensions shows it)"))
    }
}

fn parse_capacity(s: &str) -> Result<(&'static Kind, i64), String> {
    let (name, n) = s.split_once('=').ok_or_else(|| format!("expected KIND=N, got \"{s}\""))?;
    let kind = kind::named(name.trim(), &[]).map_err(|e| e.to_string())?;
    let n: i64 = n.trim().parse().map_err(|_| format!("capacity must be a whole number, got \"{n}\""))?;
    Ok((kind, kind::check_capacity(n)?))
}

/// `gasoline.db` in the platform data directory (e.g. ~/.local/share/gasoline/).
/// `None` on a platform without a data directory (then `--db` is needed).
pub fn default_db_path() -> Option<PathBuf> {
    Some(dirs::data_dir()?.join("gasoline").join("gasoline.db"))
}
