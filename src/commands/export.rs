//! `gasoline export --har FILE | --jsonl FILE [KIND...]`: the capture to a
//! file (or stdout with `-`), through `crate::export`. Read-only on the
//! database; a progress bar on a terminal.

use std::io::{IsTerminal, Write};
use std::path::Path;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{CommandError, db_path, is_closed_pipe, open_reader};
use crate::cli::ExportArgs;
use crate::export::{self, ExportError, Format, Progress, Selection, since};
use crate::query::rows::Filter;
use crate::store::now_ms;

pub async fn export(args: ExportArgs) -> Result<(), CommandError> {
    let (format, target) = match (&args.har, &args.jsonl) {
        (Some(file), None) => (Format::Har, file.clone()),
        (None, Some(file)) => (Format::Jsonl, file.clone()),
        _ => return Err(CommandError::Usage("give one of --har FILE or --jsonl FILE".into())),
    };
    if format == Format::Har && !args.kinds.is_empty() {
        return Err(CommandError::Usage("KIND arguments go with --jsonl; --har is the network capture".into()));
    }
    let since_ms = match &args.since {
        Some(text) => Some(since::parse(text, now_ms()).ok_or_else(|| CommandError::Since(text.clone()))?),
        None => None,
    };
    let filter = Filter { tab: args.tab, since_ms, url: args.url.clone(), ..Filter::default() };
    if let Some(kind) = args.kinds.iter().find(|k| filter.unsupported(k).is_some()) {
        return Err(CommandError::Usage(format!("--url does not apply to {}: it has no URL", kind.name)));
    }
    let path = db_path(&args.db, &args.port).await?;
    let conn = open_reader(&path)?;
    let selection = Selection { filter, kinds: args.kinds.clone() };
    // Written to stdout, the export is the output to watch: no bar drawn into it.
    let bar = Bar::new(target.as_os_str() != "-");
    let result = if target.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::with_capacity(256 * 1024, stdout.lock());
        match export::write(&conn, format, &selection, &mut out, Path::new("stdout"), &bar) {
            Err(ExportError::Write { source, .. }) if is_closed_pipe(&source) => return Ok(()),
            other => other,
        }
    } else {
        export::to_file(&conn, format, &selection, &target, &bar)
    };
    bar.0.finish_and_clear();
    let written = result.map_err(|e| match e {
        ExportError::Store(e) => CommandError::Store(e),
        ExportError::Write { path, source } => CommandError::Write { path, source },
    })?;
    if target.as_os_str() != "-" {
        let what = match (format, written.entries) {
            (Format::Har, 1) => "HAR entry",
            (Format::Har, _) => "HAR entries",
            (Format::Jsonl, 1) => "entry",
            (Format::Jsonl, _) => "entries",
        };
        let _ = writeln!(
            std::io::stderr(),
            "wrote {} {what} ({}) to {}",
            written.entries,
            indicatif::HumanBytes(written.bytes),
            target.display()
        );
    }
    Ok(())
}

/// A progress bar on stderr when it is a terminal; nothing otherwise.
struct Bar(ProgressBar);

impl Bar {
    fn new(shown: bool) -> Self {
        let target = if shown && std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(None, target);
        if let Ok(style) = ProgressStyle::with_template("{spinner} exporting {bar:30} {pos}/{len} ({eta} left)") {
            bar.set_style(style);
        }
        Bar(bar)
    }
}

impl Progress for Bar {
    fn total(&self, items: u64) {
        self.0.set_length(items);
    }

    fn advance(&self, items: u64) {
        self.0.inc(items);
    }
}
