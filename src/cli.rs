//! Command-line arguments. Parsing only; `run` does the work.

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
    /// Show which browser extension gasoline is paired with; --reset forgets it.
    Pair(PairArgs),
}

#[derive(Debug, Args, Clone)]
pub struct PairArgs {
    /// Database file [default: $GASOLINE_DB, else gasoline.db in the platform data directory].
    #[arg(long, env = "GASOLINE_DB")]
    pub db: Option<PathBuf>,
    /// Forget the paired extension: the next extension to connect is trusted.
    #[arg(long)]
    pub reset: bool,
}

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one; the chosen port is logged).
    #[arg(long, default_value_t = 7890, env = "GASOLINE_PORT")]
    pub port: u16,
    /// Database file [default: $GASOLINE_DB, else gasoline.db in the platform data directory].
    #[arg(long, env = "GASOLINE_DB")]
    pub db: Option<PathBuf>,
    /// Ring capacity of a kind, e.g. --capacity logs=500 (repeatable; stored in the database).
    #[arg(long = "capacity", value_name = "KIND=N", value_parser = parse_capacity)]
    pub capacities: Vec<(&'static Kind, i64)>,
    /// Longest string kept in a body field (requestBody, responseBody...), in bytes.
    #[arg(long, default_value_t = 64 * 1024)]
    pub body_cap: usize,
    /// Longest string kept in any other field, in bytes.
    #[arg(long, default_value_t = 16 * 1024)]
    pub field_cap: usize,
    /// The one browser extension accepted (its id, as in chrome-extension://ID)
    /// [default: the paired one, else the first to connect].
    #[arg(long, env = "GASOLINE_EXTENSION_ID", value_parser = parse_extension_id)]
    pub extension_id: Option<String>,
    /// Seconds an idle MCP session over HTTP is kept (for tests).
    #[arg(long, env = "GASOLINE_MCP_SESSION_KEEP_ALIVE", default_value_t = 300, hide = true)]
    pub mcp_session_keep_alive: u64,
}

fn parse_extension_id(s: &str) -> Result<String, String> {
    let id = s.trim().trim_start_matches("chrome-extension://").trim_end_matches('/');
    if crate::http::valid_extension_id(id) {
        Ok(id.to_owned())
    } else {
        Err(format!("\"{s}\" is not an extension id (lowercase letters and digits, as in chrome-extension://ID)"))
    }
}

fn parse_capacity(s: &str) -> Result<(&'static Kind, i64), String> {
    let (name, n) = s.split_once('=').ok_or_else(|| format!("expected KIND=N, got \"{s}\""))?;
    let kind = kind::by_name(name.trim())
        .ok_or_else(|| format!("unknown kind \"{name}\"; kinds: {}", kind::names().join(", ")))?;
    let n: i64 = n.trim().parse().map_err(|_| format!("capacity must be a whole number, got \"{n}\""))?;
    if n < 1 {
        return Err(format!("capacity must be at least 1, got {n}"));
    }
    Ok((kind, n))
}

/// `gasoline.db` in the platform data directory (e.g. ~/.local/share/gasoline/).
/// `None` on a platform without a data directory (then `--db` is needed).
pub fn default_db_path() -> Option<PathBuf> {
    Some(dirs::data_dir()?.join("gasoline").join("gasoline.db"))
}
