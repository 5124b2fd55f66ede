//! A map's bytes → a decoded map, through Sentry's parser (`decode_slice`, so
//! that index/sectioned maps work), with what that parser does not guard
//! against checked first: the number of mappings a map declares (the parser
//! reserves memory for every `,` and `;` before decoding any), the depth of
//! nested sections, and a panic on a crafted VLQ (overflow checks) caught.
//! `x_google_ignoreList`, which the parser does not read, is added to the
//! ignore list. Pure; CPU-bound, so callers run it off the async runtime.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use sourcemap::DecodedMap;

use super::Unmapped;

/// Most mapping separators (`,` and `;`) a map may hold in all its sections:
/// the parser reserves about 28 bytes for each, so this bounds one parse to
/// about 112 MiB. Real maps of 20 MiB hold a few million.
pub const MAX_SEPARATORS: usize = 4_000_000;
/// Deepest nesting of sections.
pub const MAX_SECTION_DEPTH: usize = 8;

/// A decoded map and what holding it costs, in bytes (roughly).
#[derive(Debug)]
pub struct Parsed {
    pub map: DecodedMap,
    pub cost: usize,
}

/// What the guard reads of a map before the parser does.
#[derive(Deserialize)]
struct Shape<'a> {
    #[serde(borrow, default)]
    mappings: Option<Cow<'a, str>>,
    #[serde(default)]
    sections: Option<Vec<Section<'a>>>,
    #[serde(rename = "x_google_ignoreList", default)]
    x_google_ignore_list: Option<Vec<u32>>,
    #[serde(rename = "ignoreList", default)]
    ignore_list: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct Section<'a> {
    offset: Offset,
    #[serde(borrow, default)]
    map: Option<Box<Shape<'a>>>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Offset {
    line: u32,
    column: u32,
}

/// Decodes a map's bytes; [`Unmapped::Invalid`] for what is not a map,
/// [`Unmapped::TooLarge`] for one declaring too many mappings.
pub fn parse(bytes: &[u8]) -> Result<Parsed, Unmapped> {
    let bytes = strip_xssi(bytes);
    let shape: Shape = serde_json::from_slice(bytes).map_err(|_| Unmapped::Invalid)?;
    let separators = check(&shape, 0)?;
    let decoded = std::panic::catch_unwind(|| sourcemap::decode_slice(bytes));
    let mut map = match decoded {
        Ok(Ok(map)) => map,
        Ok(Err(_)) | Err(_) => return Err(Unmapped::Invalid),
    };
    add_google_ignore_list(&mut map, &shape, 0);
    Ok(Parsed { map, cost: bytes.len() + separators * 28 })
}

/// Whether a map names anything (a minified bundle's maps do; a dev server's often do not).
pub fn has_names(map: &DecodedMap) -> bool {
    match map {
        DecodedMap::Regular(sm) => sm.get_name_count() > 0,
        DecodedMap::Hermes(h) => h.get_name_count() > 0,
        DecodedMap::Index(index) => index.sections().any(|s| s.get_sourcemap().is_some_and(has_names)),
    }
}

/// `)]}'` and what else the parser strips before the JSON (XSSI protection).
fn strip_xssi(bytes: &[u8]) -> &[u8] {
    match bytes.iter().position(|b| *b == b'{') {
        Some(start) if bytes[..start].iter().all(|b| b")]}'\r\n\t ".contains(b)) => &bytes[start..],
        _ => bytes,
    }
}

/// The separators the map's mappings hold, checked against the limits.
fn check(shape: &Shape, depth: usize) -> Result<usize, Unmapped> {
    if depth > MAX_SECTION_DEPTH {
        return Err(Unmapped::Invalid);
    }
    let mut total = shape.mappings.as_deref().map_or(0, |m| m.bytes().filter(|b| *b == b',' || *b == b';').count());
    for section in shape.sections.iter().flatten() {
        if let Some(map) = &section.map {
            total = total.saturating_add(check(map, depth + 1)?);
        }
        if total > MAX_SEPARATORS {
            break;
        }
    }
    if total > MAX_SEPARATORS { Err(Unmapped::TooLarge) } else { Ok(total) }
}

/// Adds `x_google_ignoreList` where a map has it and no `ignoreList`, section by section.
fn add_google_ignore_list(map: &mut DecodedMap, shape: &Shape, depth: usize) {
    if depth > MAX_SECTION_DEPTH {
        return;
    }
    match map {
        DecodedMap::Regular(sm) => {
            if shape.ignore_list.is_none() {
                for id in shape.x_google_ignore_list.iter().flatten() {
                    sm.add_to_ignore_list(*id);
                }
            }
        }
        DecodedMap::Index(index) => {
            // The parser sorts sections by offset (a stable sort): sorted the same way, they pair up.
            let mut sections: Vec<&Section> = shape.sections.iter().flatten().collect();
            sections.sort_by_key(|s| s.offset);
            for (i, section) in sections.into_iter().enumerate() {
                let Ok(i) = u32::try_from(i) else { return };
                let (Some(target), Some(inner)) = (index.get_section_mut(i), section.map.as_deref()) else { continue };
                if let Some(inner_map) = target.get_sourcemap_mut() {
                    add_google_ignore_list(inner_map, inner, depth + 1);
                }
            }
        }
        DecodedMap::Hermes(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_decode_and_non_maps_do_not() {
        let ok = br#"{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}"#;
        assert!(parse(ok).is_ok());
        assert!(parse(b")]}'\n{\"version\":3,\"sources\":[],\"mappings\":\"\"}").is_ok(), "XSSI prefix");
        assert_eq!(parse(b"<html>not found</html>").err(), Some(Unmapped::Invalid));
        assert_eq!(parse(b"{\"version\":3,\"sources\":[],\"mappings\":\"!!!\"}").err(), Some(Unmapped::Invalid));
        let names_out_of_range = br#"{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAAC"}"#;
        assert_eq!(parse(names_out_of_range).err(), Some(Unmapped::Invalid));
        let sources_out_of_range = br#"{"version":3,"sources":[],"names":[],"mappings":"AAAA"}"#;
        assert_eq!(parse(sources_out_of_range).err(), Some(Unmapped::Invalid));
    }

    #[test]
    fn a_vlq_that_overflows_is_invalid_not_a_panic() {
        let map = br#"{"version":3,"sources":["a.js"],"names":[],"mappings":"//////////////////f,A"}"#;
        assert_eq!(parse(map).err(), Some(Unmapped::Invalid));
        let map = br#"{"version":3,"sources":["a.js"],"names":[],"mappings":"+/////////////D,+/////////////D"}"#;
        assert!(matches!(parse(map), Ok(_) | Err(Unmapped::Invalid)));
    }

    #[test]
    fn billions_of_mappings_declared_are_too_large_before_any_is_decoded() {
        let many = ";".repeat(MAX_SEPARATORS + 1);
        let map = format!(r#"{{"version":3,"sources":[],"names":[],"mappings":"{many}"}}"#);
        assert_eq!(parse(map.as_bytes()).err(), Some(Unmapped::TooLarge));
        let section = format!(r#"{{"offset":{{"line":0,"column":0}},"map":{map}}}"#);
        let index = format!(r#"{{"version":3,"sections":[{section}]}}"#);
        assert_eq!(parse(index.as_bytes()).err(), Some(Unmapped::TooLarge));
    }

    #[test]
    fn deep_sections_are_refused() {
        let mut map = r#"{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}"#.to_string();
        for _ in 0..MAX_SECTION_DEPTH + 2 {
            map = format!(r#"{{"version":3,"sections":[{{"offset":{{"line":0,"column":0}},"map":{map}}}]}}"#);
        }
        assert_eq!(parse(map.as_bytes()).err(), Some(Unmapped::Invalid));
        for _ in 0..200 {
            map = format!(r#"{{"version":3,"sections":[{{"offset":{{"line":0,"column":0}},"map":{map}}}]}}"#);
        }
        assert_eq!(parse(map.as_bytes()).err(), Some(Unmapped::Invalid), "past serde's recursion limit");
    }

    #[test]
    fn google_ignore_lists_are_read() {
        let map =
            br#"{"version":3,"sources":["a.js","lib.js"],"names":[],"mappings":"AAAA,CCAA","x_google_ignoreList":[1]}"#;
        let Parsed { map: DecodedMap::Regular(sm), .. } = parse(map).expect("a map") else { panic!("regular") };
        assert_eq!(sm.ignore_list().copied().collect::<Vec<_>>(), [1]);
    }
}
