//! `gasoline kinds`, black-box: what the extension's tests read to check that
//! every field they emit is one the server declares.

mod cli;
mod common;

use cli::ok;
use serde_json::{Value, json};

fn kind<'a>(all: &'a Value, name: &str) -> &'a Value {
    all["kinds"].as_array().and_then(|k| k.iter().find(|k| k["name"] == name)).unwrap_or_else(|| panic!("{name}"))
}

fn fields(kind: &Value) -> Vec<&str> {
    kind["fields"].as_array().expect("fields").iter().map(|f| f.as_str().expect("a name")).collect()
}

#[test]
fn kinds_prints_every_kind_with_its_fields_and_columns_as_stable_json() {
    let out = ok(&["kinds"]);
    let all: Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(out, ok(&["kinds"]), "the same output every time");
    let names: Vec<&str> = all["kinds"].as_array().unwrap().iter().map(|k| k["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["logs", "network_waterfall", "network_bodies", "websocket_events", "actions", "extension_logs"]);

    // What the extension sends is declared.
    for (name, sent) in [
        ("logs", &["tabId", "ts", "level", "message", "source", "url", "original", "stack"][..]),
        ("network_waterfall", &["url", "responseStatus", "error", "source", "failed", "domContentLoaded", "load"]),
        ("network_bodies", &["method", "url", "status", "error", "failed", "responseBody"]),
        ("actions", &["type", "selector", "url", "action", "method", "value", "valueTruncated"]),
    ] {
        let declared = fields(kind(&all, name));
        for field in sent {
            assert!(declared.contains(field), "{name} declares {field}: {declared:?}");
        }
    }
    assert!(!fields(kind(&all, "logs")).contains(&"responseStatus"), "fields are per kind");

    // Columns: the field, its type, whether it is required, its allowed values.
    let logs = kind(&all, "logs");
    assert_eq!(
        logs["columns"][0],
        json!({"field": "level", "type": "text", "required": true, "one_of": ["debug", "log", "info", "warn", "error"]})
    );
    assert_eq!(logs["columns"][2], json!({"field": "source", "type": "text", "required": false, "one_of": []}));
    let waterfall = kind(&all, "network_waterfall");
    let status = waterfall["columns"].as_array().unwrap().iter().find(|c| c["field"] == "responseStatus");
    assert_eq!(status, Some(&json!({"field": "responseStatus", "type": "integer", "required": false, "one_of": []})));
    let sockets = kind(&all, "websocket_events");
    let direction = sockets["columns"].as_array().unwrap().iter().find(|c| c["field"] == "direction").unwrap();
    assert_eq!(direction["required"], json!({"when": {"field": "event", "equals": "message"}}));
    assert_eq!(direction["one_of"], json!(["incoming", "outgoing"]));
}
