//! `gasoline kinds`: every kind `kind.rs` declares, with the field names it
//! knows and its columns, as one JSON object on stdout. The extension's tests
//! read it to check that every field they emit is one the server declares, so
//! its shape and order are stable (kinds in `KINDS` order, fields in
//! `Kind::field_names` order, columns in table order). It also gives the words the
//! extension writes that the server reads (`left_page_prefix`), so that the two cannot drift.

use serde_json::{Value, json};

use super::CommandError;
use crate::kind::{ColumnType, KINDS, Kind, LEFT_PAGE_PREFIX, Required};

/// `{"kinds":[{"name":..,"fields":[..],"columns":[{"field":..,"type":..,"required":..,"one_of":[..]}]}],
/// "left_page_prefix":..}`.
pub fn declared() -> Value {
    json!({
        "kinds": KINDS.iter().map(|k| kind_json(k)).collect::<Vec<_>>(),
        "left_page_prefix": LEFT_PAGE_PREFIX,
    })
}

fn kind_json(kind: &Kind) -> Value {
    let columns: Vec<Value> = kind
        .columns
        .iter()
        .map(|c| {
            json!({
                "field": c.field,
                "type": match c.ty {
                    ColumnType::Text => "text",
                    ColumnType::Integer => "integer",
                    ColumnType::Real => "real",
                    ColumnType::Boolean => "boolean",
                },
                "required": match c.required {
                    Required::No => json!(false),
                    Required::Yes => json!(true),
                    Required::When(field, value) => json!({ "when": { "field": field, "equals": value } }),
                },
                "one_of": c.one_of,
            })
        })
        .collect();
    json!({ "name": kind.name, "fields": kind.field_names(), "columns": columns })
}

pub async fn kinds() -> Result<(), CommandError> {
    super::say(&declared().to_string()).map_err(CommandError::Stdout)
}
