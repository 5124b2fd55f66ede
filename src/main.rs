//! `gasoline`: wiring only. Parses the command line, sets up logging on stderr
//! (stdout belongs to MCP over stdio), runs the chosen mode.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use gasoline::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage(e),
    };
    // The servers say what they do; the person's commands speak only of what goes wrong.
    let quiet = match cli.command {
        Command::Serve(_) | Command::Mcp(_) => "info,rmcp=warn",
        _ => "warn",
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| quiet.into()))
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("gasoline: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => gasoline::run::serve(args).await.map_err(|e| e.to_string()),
            Command::Mcp(args) => gasoline::run::mcp(args).await.map_err(|e| e.to_string()),
            Command::Tail(args) => gasoline::commands::tail(args).await.map_err(|e| e.to_string()),
            Command::Status(args) => gasoline::commands::status(args).await.map_err(|e| e.to_string()),
            Command::Export(args) => gasoline::commands::export(args).await.map_err(|e| e.to_string()),
            Command::Clear(args) => gasoline::commands::clear(args).await.map_err(|e| e.to_string()),
            Command::Pair(args) => gasoline::run::pair(args).await.map_err(|e| e.to_string()),
            Command::Kinds => gasoline::commands::kinds().await.map_err(|e| e.to_string()),
        }
    });
    // Do not wait for a blocked stdin reader or idle blocking threads.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // A message may quote what another program said (a server's database path, its
            // refusal): shown, never obeyed, on the person's terminal.
            let lines: Vec<_> = message.lines().map(gasoline::printable::printable).collect();
            eprintln!("gasoline: {}", lines.join("\n"));
            ExitCode::FAILURE
        }
    }
}

/// Help and version as clap prints them; a mistake in the command line as one line
/// (clap's own message, then where to look), exit 2.
fn usage(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    // clap's message is its first paragraph (a list of missing arguments runs on below it).
    let text = e.to_string();
    let said: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
    let said = said.join(" ");
    let said = said.trim_start_matches("error: ");
    eprintln!("gasoline: {said} (gasoline --help, or gasoline <command> --help, lists what it takes)");
    ExitCode::from(2)
}
