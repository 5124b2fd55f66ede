//! Every entry of the chosen kinds (all by default), one JSON object per line:
//! `{"kind": …}` followed by the fields `observe` answers, in kind then id order.

use std::io::Write;

use rusqlite::Connection;

use super::{Failure, Progress, Selection};
use crate::kind::{KINDS, Kind};
use crate::query::rows;

pub(crate) fn write(
    conn: &Connection,
    selection: &Selection,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<u64, Failure> {
    let kinds: Vec<&'static Kind> = if selection.kinds.is_empty() { KINDS.to_vec() } else { selection.kinds.clone() };
    // A filter a kind has no column for (--url on extension_logs) leaves that kind out.
    let kinds: Vec<&'static Kind> = kinds.into_iter().filter(|k| selection.filter.unsupported(k).is_none()).collect();
    let mut total = 0;
    for kind in &kinds {
        total += rows::count(conn, kind, &selection.filter)?;
    }
    progress.total(u64::try_from(total).unwrap_or(0));
    let mut written = 0u64;
    for kind in kinds {
        rows::each(conn, kind, &selection.filter, |entry| -> Result<(), Failure> {
            let mut line = entry.json_with_kind();
            line.push('\n');
            out.write_all(line.as_bytes())?;
            written += 1;
            if written.is_multiple_of(1024) {
                progress.advance(1024);
            }
            Ok(())
        })?;
    }
    progress.advance(written % 1024);
    Ok(written)
}
