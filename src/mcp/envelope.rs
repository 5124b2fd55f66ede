//! What a client's message must be before rmcp sees it, on both transports.
//!
//! rmcp answers some malformed messages in ways that break JSON-RPC 2.0 (§5):
//! over HTTP, text that is not JSON or not a JSON-RPC message gets a plain-text
//! 415; over stdio it gets no answer at all, or an error without `id`; and a
//! `tools/call` or `initialize` whose params do not fit gets -32601 ("method not
//! found") named only by the method. [`check`] finds those first and says what
//! the client should have sent, with the code the spec gives it: -32700 for
//! text that is not JSON, -32600 for JSON that is not one request, notification
//! or response, -32602 for params that do not fit a method this server has,
//! -32601 for a method it has not. Whatever passes is exactly what rmcp parses.
//! A batch, which rmcp does not take, is split here ([`batch`], [`Batch`]) for
//! the transports to serve message by message and answer as one array.

use rmcp::model::{CallToolRequest, ClientJsonRpcMessage, ErrorCode, InitializeRequest};
use serde_json::{Map, Value, json};

use crate::query::args::kind_of;

/// The requests this server answers (it declares tools only). `server/discover` is the stateless
/// 2026-07-28 revision's start, which rmcp answers on both transports like the `initialize` of
/// 2025-11-25 and before.
const METHODS: [&str; 5] = ["initialize", "server/discover", "ping", "tools/list", "tools/call"];
/// The same in a request of the stateless revision (2026-07-28), which has no `initialize` and no
/// `ping`: there is no session to open or keep alive.
const STATELESS_METHODS: [&str; 3] = ["server/discover", "tools/list", "tools/call"];

/// A message refused before rmcp sees it, and the JSON-RPC error that answers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The request's id; None when the message has none that can be read (the error then says `"id": null`).
    pub id: Option<Value>,
    /// The request's method, when the message was a request of one.
    pub method: Option<String>,
    pub code: ErrorCode,
    pub message: String,
}

impl Refusal {
    fn new(id: Option<Value>, code: ErrorCode, message: impl Into<String>) -> Box<Self> {
        Box::new(Refusal { id, method: None, code, message: message.into() })
    }

    /// Whether the message was one request (JSON-RPC, with an id) that this server cannot answer
    /// as sent: its params do not fit, or its method is not one this server has.
    pub fn is_of_a_request(&self) -> bool {
        self.method.is_some()
    }

    /// The JSON-RPC error response.
    pub fn to_value(&self) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.id.clone().unwrap_or(Value::Null),
            "error": { "code": self.code.0, "message": self.message },
        })
    }

    /// The JSON-RPC error response, on one line.
    pub fn to_line(&self) -> String {
        self.to_value().to_string()
    }
}

/// A batch's messages, checked: what goes on to rmcp, the ids of the requests among them
/// (whose answers make up the batch's answer), and the refusals already answered.
#[derive(Debug, Default)]
pub struct Batch {
    pub forward: Vec<Vec<u8>>,
    pub waiting: Vec<Value>,
    pub answers: Vec<Value>,
}

impl Batch {
    pub fn of(items: Vec<Vec<u8>>) -> Batch {
        let mut batch = Batch::default();
        for item in items {
            match check(&item) {
                // MCP 2025-03-26, the version that has batches: initialize must not be part of one.
                Ok(Message::Request { method, id }) if method == "initialize" => batch.answers.push(
                    Refusal::new(Some(id), ErrorCode::INVALID_REQUEST, "initialize must be sent alone, not in a batch")
                        .to_value(),
                ),
                Ok(Message::Request { id, .. }) => {
                    batch.waiting.push(id);
                    batch.forward.push(item);
                }
                Ok(_) => batch.forward.push(item),
                Err(refusal) => batch.answers.push(refusal.to_value()),
            }
        }
        batch
    }
}

/// What a message is, once checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// A request, with its method and its id (which its answer carries).
    Request {
        method: String,
        id: Value,
    },
    Notification,
    Response,
}

/// The messages of a batch (MCP 2025-03-26: a JSON array of messages), each as its own text,
/// to be checked and answered one by one, their answers sent back together as an array.
/// None when `bytes` is not an array of at least one element.
pub fn batch(bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'[') {
        return None;
    }
    // An array nested deeper than serde_json reads (a raw value is skipped over at any depth) is
    // one parse error, not a batch of them.
    crate::ingest::Shape::measure(bytes).ok()?;
    let items: Vec<Box<serde_json::value::RawValue>> = serde_json::from_slice(bytes).ok()?;
    (!items.is_empty()).then(|| items.into_iter().map(|item| item.get().as_bytes().to_vec()).collect())
}

/// The id an answer carries, to match it with the request of a batch.
pub fn answer_id(line: &[u8]) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Answer {
        id: Option<Value>,
    }
    serde_json::from_slice::<Answer>(line).ok()?.id
}

/// Checks one message as a client sent it (one HTTP body, one stdio line).
pub fn check(bytes: &[u8]) -> Result<Message, Box<Refusal>> {
    check_in(bytes, &METHODS)
}

/// [`check`] for a request of the stateless revision, whose methods are [`STATELESS_METHODS`].
pub fn check_stateless(bytes: &[u8]) -> Result<Message, Box<Refusal>> {
    check_in(bytes, &STATELESS_METHODS)
}

/// Checks one message against the requests `methods` this server answers.
fn check_in(bytes: &[u8], methods: &[&str]) -> Result<Message, Box<Refusal>> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        out_of_range(bytes, &e, methods).unwrap_or_else(|| {
            Refusal::new(
                None,
                ErrorCode::PARSE_ERROR,
                format!("parse error: {e}: send one JSON-RPC 2.0 message as JSON"),
            )
        })
    })?;
    let object = match value {
        Value::Object(object) => object,
        Value::Array(items) if items.is_empty() => {
            return Err(Refusal::new(None, ErrorCode::INVALID_REQUEST, "a batch must hold at least one message"));
        }
        Value::Array(_) => {
            // A batch with messages is split by `batch` before it comes here: this is one inside a batch.
            return Err(Refusal::new(
                None,
                ErrorCode::INVALID_REQUEST,
                "a JSON-RPC message is a JSON object; a batch holds messages, not batches",
            ));
        }
        other => {
            return Err(Refusal::new(
                None,
                ErrorCode::INVALID_REQUEST,
                format!("a JSON-RPC message is a JSON object, got {}", kind_of(&other)),
            ));
        }
    };
    let id = match object.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(id @ Value::Number(n)) if n.is_i64() => Some(id.clone()),
        Some(Value::Number(n)) => {
            return Err(Refusal::new(
                None,
                ErrorCode::INVALID_REQUEST,
                format!(
                    "id must be a string or an integer from -2^63 to 2^63-1 written without a fraction or exponent, got {n}"
                ),
            ));
        }
        Some(other) => {
            return Err(Refusal::new(
                None,
                ErrorCode::INVALID_REQUEST,
                format!("id must be a string or an integer, got {}", kind_of(other)),
            ));
        }
    };
    let invalid = |message: String| Refusal::new(id.clone(), ErrorCode::INVALID_REQUEST, message);
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(invalid("\"jsonrpc\": \"2.0\" is required".into()));
    }
    // A key named twice (in `arguments`, say): which one counts is not for this server to guess,
    // as ingest does not (serde_json keeps the last without a word).
    if let Err(e) = crate::unique_keys::from_slice(bytes) {
        // Two ids: which one the answer would carry is a guess, so it carries none.
        let id = if id_named_twice(bytes) { None } else { id.clone() };
        return Err(Refusal::new(id, ErrorCode::INVALID_REQUEST, format!("{e}: send each key of an object once")));
    }
    let kind = match (object.get("method"), &id) {
        (Some(Value::String(method)), Some(_)) => {
            check_request(method, &object, methods).map_err(|(code, m)| {
                Box::new(Refusal { method: Some(method.clone()), ..*Refusal::new(id.clone(), code, m) })
            })?;
            Message::Request { method: method.clone(), id: id.clone().unwrap_or(Value::Null) }
        }
        (Some(Value::String(_)), None) => Message::Notification,
        (Some(other), _) => return Err(invalid(format!("method must be a string, got {}", kind_of(other)))),
        (None, Some(_)) if object.contains_key("result") != object.contains_key("error") => Message::Response,
        (None, _) => {
            return Err(invalid(
                "neither a request (method and id), a notification (method) nor a response (id and result or error)"
                    .into(),
            ));
        }
    };
    // The last word is rmcp's own parser: what it would refuse is refused here, with its reason.
    serde_json::from_slice::<ClientJsonRpcMessage>(bytes)
        .map_err(|e| invalid(format!("not a JSON-RPC message: {e}")))?;
    Ok(kind)
}

/// Well-formed JSON whose one fault is a number no double holds (`"offset": 1e400`): not a parse
/// error, which says the text is not JSON, but a message this server cannot take as sent, answered
/// with its id. None when `e` is another fault, or the text is not JSON at all.
fn out_of_range(bytes: &[u8], e: &serde_json::Error, methods: &[&str]) -> Option<Box<Refusal>> {
    if !e.to_string().starts_with("number out of range") {
        return None;
    }
    // Raw values are checked as JSON without their numbers being converted.
    let fields: std::collections::HashMap<String, Box<serde_json::value::RawValue>> =
        serde_json::from_slice(bytes).ok()?;
    let read = |key: &str| fields.get(key).and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok());
    let id = read("id").filter(|id| id.is_string() || id.is_i64() || id.is_u64());
    let method = match read("method") {
        Some(Value::String(method)) if id.is_some() && methods.contains(&method.as_str()) => Some(method),
        _ => None,
    };
    let code = if method.is_some() { ErrorCode::INVALID_PARAMS } else { ErrorCode::INVALID_REQUEST };
    let message = format!("{e}: every number must fit a 64-bit float (at most about 1.8e308)");
    Some(Box::new(Refusal { id, method, code, message }))
}

/// Whether the message's own object (not one inside it) names `id` more than once.
fn id_named_twice(bytes: &[u8]) -> bool {
    struct Ids;
    impl<'de> serde::de::Visitor<'de> for Ids {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
            let mut ids = 0;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                ids += usize::from(key == "id");
                map.next_value::<serde::de::IgnoredAny>()?;
            }
            Ok(ids)
        }
    }
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    serde::Deserializer::deserialize_map(&mut reader, Ids).is_ok_and(|n| n > 1)
}

/// A request's method and params, against what this server answers.
fn check_request(method: &str, object: &Map<String, Value>, methods: &[&str]) -> Result<(), (ErrorCode, String)> {
    if !methods.contains(&method) {
        return Err((
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {method} (this server answers {})", methods.join(", ")),
        ));
    }
    let params = match object.get("params") {
        // JSON-RPC wants params left out rather than null, but a null says the same.
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(params @ Value::Object(_)) => params.clone(),
        Some(other) => {
            return Err((ErrorCode::INVALID_PARAMS, format!("params must be an object, got {}", kind_of(other))));
        }
    };
    let typed = json!({ "method": method, "params": params });
    let fits = match method {
        "tools/call" => serde_json::from_value::<CallToolRequest>(typed).map(drop),
        "initialize" => serde_json::from_value::<InitializeRequest>(typed).map(drop),
        _ => Ok(()),
    };
    fits.map_err(|e| (ErrorCode::INVALID_PARAMS, format!("invalid params for {method}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> Refusal {
        *check(text.as_bytes()).expect_err(text)
    }

    #[test]
    fn what_rmcp_answers_passes_as_it_is() {
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        let request = |method: &str, id: Value| Ok(Message::Request { method: method.into(), id });
        assert_eq!(check(init.as_bytes()), request("initialize", json!(1)));
        let call = r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"observe","arguments":{"what":"logs"}}}"#;
        assert_eq!(check(call.as_bytes()), request("tools/call", json!("a")));
        assert_eq!(check(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#), request("ping", json!(2)));
        let list = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":null}"#;
        assert_eq!(check(list), request("tools/list", json!(2)), "a null params is left out");
        assert_eq!(check(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Ok(Message::Notification));
        assert_eq!(check(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#), Ok(Message::Response));
        let error = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}"#;
        assert_eq!(check(error.as_bytes()), Ok(Message::Response));
    }

    #[test]
    fn a_key_named_twice_is_an_invalid_request() {
        let r = refused(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","what":"errors"}}}"#,
        );
        assert_eq!((r.code, r.id.clone()), (ErrorCode::INVALID_REQUEST, Some(json!(3))));
        assert!(r.message.contains("\"what\" appears twice"), "{}", r.message);
        let r = refused(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#);
        assert_eq!((r.code, r.id), (ErrorCode::INVALID_REQUEST, None), "two ids: the answer carries none");
    }

    #[test]
    fn text_that_is_not_json_is_a_parse_error_without_an_id() {
        for text in ["not json", r#"{"jsonrpc":"2.0","id":4,"method":"ping""#, "", "\u{0}\u{1}garbage"] {
            let r = refused(text);
            assert_eq!((r.code, r.id.clone()), (ErrorCode::PARSE_ERROR, None), "{text}");
            let line: Value = serde_json::from_str(&r.to_line()).unwrap();
            assert_eq!(line["id"], Value::Null);
            assert_eq!(line["error"]["code"], -32700);
        }
    }

    #[test]
    fn an_id_is_a_string_or_a_64_bit_integer_and_a_refusal_says_so() {
        for id in ["1.5", "1.0", "1e3", "12345678901234567890"] {
            let r = refused(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
            assert_eq!((r.code, r.id.clone()), (ErrorCode::INVALID_REQUEST, None), "{id}");
            assert!(r.message.contains("an integer from -2^63 to 2^63-1"), "{id}: {}", r.message);
        }
        let r = check(br#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}"#);
        assert_eq!(r, Ok(Message::Request { method: "ping".into(), id: json!(i64::MIN) }));
    }

    #[test]
    fn a_number_no_double_holds_is_refused_with_the_id_not_as_a_parse_error() {
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","offset":1e400}}}"#;
        let r = refused(call);
        assert_eq!((r.code, r.id.clone(), r.is_of_a_request()), (ErrorCode::INVALID_PARAMS, Some(json!(7)), true));
        assert!(r.message.starts_with("number out of range"), "{}", r.message);
        assert!(r.message.contains("64-bit float"), "{}", r.message);
        let r = refused(r#"{"jsonrpc":"2.0","id":-1e999,"method":"ping"}"#);
        assert_eq!((r.code, r.id), (ErrorCode::INVALID_REQUEST, None), "an id out of range is no id");
        let r = refused(r#"{"jsonrpc":"2.0","id":"x","method":"nope","params":{"n":1e400}}"#);
        assert_eq!((r.code, r.id), (ErrorCode::INVALID_REQUEST, Some(json!("x"))));
        let r = refused(r#"{"jsonrpc":"2.0","id":1,"params":{"n":1e400},"#);
        assert_eq!((r.code, r.id), (ErrorCode::PARSE_ERROR, None), "not JSON at all stays a parse error");
        let items = batch(format!("[{call}]").as_bytes()).expect("a batch holding 1e400 is still a batch");
        assert_eq!(Batch::of(items).answers[0]["error"]["code"], -32602);
    }

    #[test]
    fn json_that_is_not_one_message_is_an_invalid_request() {
        for (text, id) in [
            (r#"{"id":9,"method":"ping"}"#, Some(json!(9))),
            (r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#, Some(json!(9))),
            (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":1,"method":5}"#, Some(json!(1))),
            (r#"{"jsonrpc":"2.0","id":1}"#, Some(json!(1))),
            (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, None),
            ("[]", None),
            (r#""str""#, None),
        ] {
            let r = refused(text);
            assert_eq!((r.code, r.id), (ErrorCode::INVALID_REQUEST, id), "{text}");
        }
        assert!(refused("[]").message.contains("at least one message"));
    }

    #[test]
    fn params_that_do_not_fit_are_invalid_params_naming_what_is_wrong() {
        for (text, says) in [
            (r#"{"jsonrpc":"2.0","id":10,"method":"tools/call"}"#, "name"),
            (r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"arguments":{}}}"#, "name"),
            (
                r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"observe","arguments":[1]}}"#,
                "invalid",
            ),
            (
                r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"observe","arguments":"x"}}"#,
                "invalid",
            ),
            (r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":[1]}"#, "params must be an object"),
            (r#"{"jsonrpc":"2.0","id":10,"method":"initialize"}"#, "invalid params for initialize"),
        ] {
            let r = refused(text);
            assert_eq!((r.code, r.id.clone()), (ErrorCode::INVALID_PARAMS, Some(json!(10))), "{text}");
            assert!(r.message.contains(says), "{text}: {}", r.message);
        }
    }

    #[test]
    fn a_batch_is_split_into_its_messages_as_they_were_written() {
        let text = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}, "x", {"jsonrpc":"2.0","method":"n"}]"#;
        let items = batch(text).unwrap();
        let items: Vec<&str> = items.iter().map(|i| std::str::from_utf8(i).unwrap()).collect();
        assert_eq!(
            items,
            [r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, r#""x""#, r#"{"jsonrpc":"2.0","method":"n"}"#]
        );
        assert_eq!((batch(b"[]"), batch(b"{}"), batch(b"[1")), (None, None, None));
        // Nested past what serde_json reads: one parse error for the whole, not a batch of one.
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(batch(deep.as_bytes()), None);
        assert!(refused("[1]").message.contains("not batches"), "an array inside a batch is no message");
        let init = br#"[{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}]"#;
        let refused = Batch::of(batch(init).unwrap());
        assert!(refused.forward.is_empty(), "initialize in a batch reaches no one");
        assert_eq!(
            (refused.answers[0]["id"].clone(), refused.answers[0]["error"]["code"].clone()),
            (json!(5), json!(-32600))
        );
        assert_eq!(answer_id(br#"{"jsonrpc":"2.0","id":"a","result":{}}"#), Some(json!("a")));
    }

    #[test]
    fn a_method_this_server_lacks_is_method_not_found_in_words() {
        let r = refused(r#"{"jsonrpc":"2.0","id":"r","method":"resources/list"}"#);
        assert_eq!((r.code, r.id), (ErrorCode::METHOD_NOT_FOUND, Some(json!("r"))));
        assert!(r.message.starts_with("method not found: resources/list"), "{}", r.message);
    }
}
