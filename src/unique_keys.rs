//! JSON read into serde_json's `Value`, except that an object naming the same
//! key twice is refused. serde_json keeps the last of two equal keys and drops
//! the first without a word: `{"entries":[a],"entries":[b]}` would store `b`
//! and lose `a`, and an entry's second `"message"` would hide its first. JSON
//! (RFC 8259 §4) leaves such objects' meaning to the reader; ours says so.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// `bytes` as one JSON value (whitespace around it allowed), every object's keys distinct.
pub fn from_slice(bytes: &[u8]) -> serde_json::Result<Value> {
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let value = Unique.deserialize(&mut reader)?;
    reader.end()?;
    Ok(value)
}

/// Builds a `Value` as serde_json's own visitor does, refusing a repeated key.
struct Unique;

impl<'de> DeserializeSeed<'de> for Unique {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(Unique)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Unique)?;
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!("the key {key:?} appears twice in one object")));
            }
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::from_slice;
    use serde_json::json;

    #[test]
    fn reads_what_serde_json_reads() {
        let text = r#" {"a":[1,-2,3.5,1e300,"s\u00e9",true,null,{}],"b":{"c":18446744073709551615}} "#;
        assert_eq!(from_slice(text.as_bytes()).unwrap(), serde_json::from_str::<serde_json::Value>(text).unwrap());
        assert_eq!(from_slice(b"[]").unwrap(), json!([]));
        // Out of f64's range: refused by both.
        assert!(from_slice(b"[1e400]").is_err() && serde_json::from_str::<serde_json::Value>("[1e400]").is_err());
    }

    #[test]
    fn refuses_a_key_named_twice_at_any_depth() {
        for text in [r#"{"entries":[1],"entries":[2]}"#, r#"{"entries":[{"message":"a","level":"log","message":"b"}]}"#]
        {
            let err = from_slice(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains("appears twice"), "{err}");
        }
        // Equal after unescaping is equal.
        assert!(from_slice(br#"{"a":1,"\u0061":2}"#).is_err());
        assert!(from_slice(br#"{"a":1} {"#).is_err(), "trailing text is refused as serde_json refuses it");
    }
}
