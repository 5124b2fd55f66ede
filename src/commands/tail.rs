//! `gasoline tail`: the newest entries of the chosen kinds merged in time
//! order, then (with `-f`) each new entry once as it arrives, until Ctrl-C.
//! Reads the database as a WAL reader beside a running server; never writes.

use std::io::Write;
use std::time::Duration;

use rusqlite::Connection;

use super::{CommandError, db_path, is_closed_pipe, line, open_reader};
use crate::cli::{TailArgs, TailKind};
use crate::kind::{self, Kind};
use crate::query::Snapshot;
use crate::query::rows::{self, Entry, Filter};
use crate::store::sql::kind_stats;

/// How long `-f` waits between reads when nothing new came.
const IDLE_POLL: Duration = Duration::from_millis(250);
/// Most rows of one kind read per poll; a busy ring is read again at once.
const BATCH: usize = 1_000;

/// One stream of the merge: a kind with the filter its entries must pass.
struct Source {
    kind: &'static Kind,
    filter: Filter,
    /// Every id up to this has been seen (printed or filtered out).
    cursor: i64,
}

pub async fn tail(args: TailArgs) -> Result<(), CommandError> {
    let mut sources = sources(&args)?;
    let path = db_path(&args.db, &args.port).await?;
    let conn = open_reader(&path)?;
    let mut out = Output::new(args.json);

    let first = {
        let _snapshot = Snapshot::begin(&conn)?;
        let mut all = Vec::new();
        for s in &mut sources {
            all.extend(rows::last(&conn, s.kind, &s.filter, args.lines)?);
            s.cursor = rows::last_issued(&conn, s.kind)?;
        }
        sort(&mut all);
        let skip = all.len().saturating_sub(args.lines);
        all.split_off(skip)
    };
    if !out.print(&first)? || !args.follow {
        return Ok(());
    }
    follow(&conn, &mut sources, &mut out).await
}

async fn follow(conn: &Connection, sources: &mut [Source], out: &mut Output) -> Result<(), CommandError> {
    let interrupted = interrupted()?;
    tokio::pin!(interrupted);
    loop {
        let (fresh, more) = poll(conn, sources)?;
        if !out.print(&fresh)? {
            return Ok(());
        }
        if more {
            continue;
        }
        tokio::select! {
            () = &mut interrupted => return Ok(()),
            () = tokio::time::sleep(IDLE_POLL) => {}
        }
    }
}

/// Reads what arrived after each source's cursor; true when a kind has more waiting.
fn poll(conn: &Connection, sources: &mut [Source]) -> Result<(Vec<Entry>, bool), CommandError> {
    let _snapshot = Snapshot::begin(conn)?;
    let mut fresh = Vec::new();
    let mut more = false;
    for s in sources.iter_mut() {
        let newest = rows::last_issued(conn, s.kind)?;
        if newest <= s.cursor {
            continue;
        }
        // What the ring trimmed (or someone cleared) before this read reached it is said, not
        // skipped in silence; on stderr, so that stdout stays one entry a line. Asked only when
        // something came: an idle poll stays one query a kind.
        let gone = kind_stats(conn, s.kind)?.gone_since(s.cursor);
        for (n, how) in [(gone.evicted, "trimmed from the ring (capacity reached)"), (gone.cleared, "cleared")] {
            if n > 0 {
                eprintln!("gasoline tail: {n} {} entries were {how} before they could be shown", s.kind.name);
            }
        }
        let got = rows::after(conn, s.kind, &s.filter, s.cursor, BATCH)?;
        if got.len() == BATCH {
            more = true;
            s.cursor = got.last().map_or(s.cursor, |e| e.id);
        } else {
            // Every id up to `newest` is now read or did not match.
            s.cursor = newest;
        }
        fresh.extend(got);
    }
    sort(&mut fresh);
    Ok((fresh, more))
}

/// Time order across kinds; within a kind, id order (the order they were stored).
fn sort(entries: &mut [Entry]) {
    let rank = |k: &Kind| kind::KINDS.iter().position(|o| o.name == k.name).unwrap_or(0);
    entries.sort_by_key(|e| (e.ts, rank(e.kind), e.id));
}

/// The least console level the default view shows.
const DEFAULT_LEVEL: &str = "log";

/// The kinds to read and each one's filter; a filter that cannot apply to a
/// kind the person named is a mistake, to a default kind it just leaves it out.
fn sources(args: &TailArgs) -> Result<Vec<Source>, CommandError> {
    let defaulted = args.kinds.is_empty();
    // The default view leaves debug lines out, as DevTools' default levels do (a dev server's
    // "connecting…" and "connected." on every load); --level debug, or naming logs, shows them.
    let min_level = args.level.or(defaulted.then_some(DEFAULT_LEVEL));
    let base =
        Filter { tab: args.tab, url: args.url.clone(), min_level, status_min: args.status_min, ..Filter::default() };
    let request = |kind| (TailKind { kind, errors_only: false }, true);
    // A request's row is in network_waterfall, whoever saw it and however it failed (CORS, DNS,
    // an image's error, a deep tab's): one line a request. Its body is asked for by name.
    let chosen: Vec<(TailKind, bool)> = if defaulted && args.failed {
        vec![request(&kind::NETWORK_WATERFALL)]
    } else if defaulted {
        // Failed requests by default, unless --status-min says which.
        let rows = (TailKind { kind: &kind::NETWORK_WATERFALL, errors_only: false }, args.status_min.is_none());
        vec![(TailKind { kind: &kind::LOGS, errors_only: false }, false), rows]
    } else {
        args.kinds.iter().map(|k| (*k, args.failed)).collect()
    };
    // The default's failed requests are the app's: not the browser's 404 for a favicon it
    // guessed at, on every load of a page that has none (--failed lists every failure).
    let app_failures = defaulted && !args.failed;
    let mut out: Vec<Source> = Vec::new();
    for (tk, failed_only) in chosen {
        let mut filter = Filter { failed_only, app_failures, ..base.clone() };
        if tk.errors_only {
            filter.min_level = Some("error");
        }
        if defaulted && !tk.kind.filters.iter().any(|f| f.column == "level") {
            // The default's failed requests have no level: --level sorts the console lines.
            filter.min_level = None;
        }
        if let Some(flag) = filter.unsupported(tk.kind) {
            if defaulted {
                continue;
            }
            return Err(CommandError::Usage(format!("{flag} does not apply to {}", tk.kind.name)));
        }
        match out.iter_mut().find(|s| s.kind.name == tk.kind.name) {
            // `logs errors`: logs already include the errors.
            Some(existing) => {
                if !tk.errors_only {
                    existing.filter.min_level = base.min_level;
                }
            }
            None => out.push(Source { kind: tk.kind, filter, cursor: 0 }),
        }
    }
    if out.is_empty() {
        return Err(CommandError::Usage("these filters leave no kind to show; name the kinds to tail".into()));
    }
    Ok(out)
}

/// Resolves when the person presses Ctrl-C (or the process gets SIGTERM).
fn interrupted() -> Result<impl std::future::Future<Output = ()>, CommandError> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt()).map_err(CommandError::Signals)?;
        let mut terminate = signal(SignalKind::terminate()).map_err(CommandError::Signals)?;
        Ok(async move {
            tokio::select! { _ = interrupt.recv() => {}, _ = terminate.recv() => {} }
        })
    }
    #[cfg(not(unix))]
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

/// stdout, styled on a terminal and plain otherwise.
struct Output {
    stream: anstream::AutoStream<std::io::Stdout>,
    json: bool,
    today: chrono::NaiveDate,
}

impl Output {
    fn new(json: bool) -> Self {
        Output { stream: anstream::stdout(), json, today: chrono::Local::now().date_naive() }
    }

    /// Prints the entries; false once the reader has gone (a closed pipe).
    fn print(&mut self, entries: &[Entry]) -> Result<bool, CommandError> {
        if entries.is_empty() {
            return Ok(true);
        }
        let mut text = String::new();
        for e in entries {
            if self.json {
                text.push_str(&crate::printable::json(&e.json_with_kind()));
            } else {
                text.push_str(&line::render(e, self.today));
            }
            text.push('\n');
        }
        match self.stream.write_all(text.as_bytes()).and_then(|()| self.stream.flush()) {
            Ok(()) => Ok(true),
            Err(e) if is_closed_pipe(&e) => Ok(false),
            Err(e) => Err(CommandError::Stdout(e)),
        }
    }
}
