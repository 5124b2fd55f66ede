//! What an answer that matched nothing says of a filter that takes one value exactly (`type`,
//! `method`, `connectionId`): when no entry of the kind holds the value asked for (`type=document`,
//! `method=post`), the values its entries do hold, so that a guess is not read as "none happened".

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use super::QueryError;
use super::args::ObserveArgs;
use super::compact::json_string;
use super::filter::filter_expr;
use crate::kind::{ColumnType, FilterOp, Kind};

/// Most values named.
const MAX_VALUES: usize = 12;
/// Longest value named, in characters (a connection id is the page's text).
const MAX_VALUE_CHARS: usize = 60;

/// For the first exact text filter of `args` whose value no entry of `kind` holds, whatever the
/// other filters: the values its entries hold, the most frequent first.
pub fn unheld(conn: &Connection, kind: &Kind, args: &ObserveArgs) -> Result<Option<String>, QueryError> {
    for given in &args.filters {
        let f = given.filter;
        let Some(value) = given.value.as_str() else { continue };
        if f.op != FilterOp::Equals || f.ty != ColumnType::Text {
            continue;
        }
        let expr = filter_expr(f);
        let held_sql = format!("SELECT EXISTS (SELECT 1 FROM {} WHERE {expr} = ?1)", kind.name);
        let held: bool = conn.prepare_cached(&held_sql)?.query_row([value], |r| r.get(0))?;
        if held {
            continue;
        }
        let sql = format!(
            "SELECT {expr}, count(*) FROM {} WHERE {expr} IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT {}",
            kind.name,
            MAX_VALUES + 1
        );
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query([])?;
        let mut named = Vec::new();
        while let Some(row) = rows.next()? {
            if named.len() == MAX_VALUES {
                named.push("…".to_string());
                break;
            }
            let text = match row.get_ref(0)? {
                ValueRef::Text(t) => String::from_utf8_lossy(t).chars().take(MAX_VALUE_CHARS).collect(),
                other => format!("{:?}", other.data_type()),
            };
            named.push(format!("{} ({})", json_string(&text), row.get::<_, i64>(1)?));
        }
        // As JSON strings: a page's text said in a hint stays one value.
        let asked = json_string(value);
        return Ok(Some(if named.is_empty() {
            format!("no {} entry has a {}, so none is {}=", kind.name, f.arg, f.arg) + &asked
        } else {
            format!("no {} entry has {}={asked}; the values kept: {}", kind.name, f.arg, named.join(", "))
        }));
    }
    Ok(None)
}
