//! Where a script's source map is, found the way browsers find it: a
//! `SourceMap` (or legacy `X-SourceMap`) response header, else the last
//! `//# sourceMappingURL=` (or legacy `//@`) comment; a `data:` URL is the
//! map itself (base64, with or without `;charset=utf-8`, or percent-encoded),
//! anything else is resolved against the script's URL. A WebAssembly module names its map in a
//! custom section of its own, `sourceMappingURL` (the WebAssembly source map convention; Chrome
//! reads it so). Pure.

use url::Url;

use super::Unmapped;

/// Where the map of one script is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapRef {
    /// The map's bytes, from a `data:` URL.
    Inline(Vec<u8>),
    /// The map's absolute URL (not yet checked against the scope).
    Url(Url),
}

/// The map reference of a script: the header's value if it has one, else the
/// last comment's. None when there is neither.
pub fn map_reference<'a>(header: Option<&'a str>, script: &'a str) -> Option<&'a str> {
    header.map(str::trim).filter(|h| !h.is_empty()).or_else(|| last_comment(script))
}

/// The value of the last `//# sourceMappingURL=` or `//@ sourceMappingURL=`
/// comment that starts a line.
pub fn last_comment(script: &str) -> Option<&str> {
    script.rsplit('\n').find_map(|line| {
        let line = line.trim_start();
        let rest = line.strip_prefix("//#").or_else(|| line.strip_prefix("//@"))?;
        let value = rest.trim_start().strip_prefix("sourceMappingURL=")?;
        let value = value.split_whitespace().next()?;
        Some(value)
    })
}

/// Whether `bytes` are a WebAssembly module: its magic number, `\0asm`.
pub fn is_wasm(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\0asm")
}

/// The map reference of a WebAssembly module: its `SourceMap` header's, else its custom section
/// `sourceMappingURL`'s (a length-prefixed URL). None when it has neither, or is malformed.
pub fn wasm_map_reference(header: Option<&str>, module: &[u8]) -> Option<String> {
    if let Some(h) = header.map(str::trim).filter(|h| !h.is_empty()) {
        return Some(h.to_string());
    }
    // The magic number and the version, then sections: an id byte, a LEB128 size, the payload.
    let mut at = 8;
    while at < module.len() {
        let id = module[at];
        let (size, read) = leb128(module.get(at + 1..)?)?;
        let start = at + 1 + read;
        let end = start.checked_add(size)?;
        let payload = module.get(start..end)?;
        if id == 0 {
            let (name_len, read) = leb128(payload)?;
            let name = payload.get(read..read.checked_add(name_len)?)?;
            if name == b"sourceMappingURL" {
                let rest = &payload[read + name_len..];
                let (url_len, read) = leb128(rest)?;
                let url = rest.get(read..read.checked_add(url_len)?)?;
                return std::str::from_utf8(url).ok().map(str::to_string);
            }
        }
        at = end;
    }
    None
}

/// An unsigned LEB128 number at the start of `bytes` and how many bytes it took (at most 5: a u32).
fn leb128(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut value = 0usize;
    for (i, b) in bytes.iter().take(5).enumerate() {
        value |= usize::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// A reference made into a [`MapRef`] against the script's URL.
pub fn resolve(reference: &str, script_url: &Url) -> Result<MapRef, Unmapped> {
    if reference.len() >= 5 && reference[..5].eq_ignore_ascii_case("data:") {
        return data_url(&reference[5..]).map(MapRef::Inline);
    }
    script_url.join(reference).map(MapRef::Url).map_err(|_| Unmapped::Invalid)
}

/// The bytes of a `data:` URL (what follows `data:`) holding JSON.
fn data_url(rest: &str) -> Result<Vec<u8>, Unmapped> {
    let (meta, payload) = rest.split_once(',').ok_or(Unmapped::Invalid)?;
    let mut parts = meta.split(';').map(str::trim);
    let mime = parts.next().unwrap_or("").to_ascii_lowercase();
    if !(mime.is_empty() || mime == "application/json" || mime == "text/json" || mime.ends_with("+json")) {
        return Err(Unmapped::Invalid);
    }
    let base64 = parts.any(|p| p.eq_ignore_ascii_case("base64"));
    let bytes = percent_decode(payload);
    if base64 { decode_base64(&bytes).ok_or(Unmapped::Invalid) } else { Ok(bytes) }
}

fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (bytes.get(i + 1).and_then(hex), bytes.get(i + 2).and_then(hex))
        {
            out.push(h << 4 | l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

fn hex(b: &u8) -> Option<u8> {
    (*b as char).to_digit(16).map(|d| d as u8)
}

/// Standard or URL-safe base64, padding optional, ASCII whitespace ignored.
pub fn decode_base64(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    let mut ended = false;
    for &c in text {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => {
                ended = true;
                continue;
            }
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        if ended {
            return None;
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    /// A module of one custom section `sourceMappingURL` holding `url`, after a type section.
    fn module_naming(url: &str) -> Vec<u8> {
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        m.extend([1, 4, 1, 0x60, 0, 0]); // a type section: one function type () -> ()
        let name = b"sourceMappingURL";
        let mut payload = vec![name.len() as u8];
        payload.extend(name);
        payload.push(url.len() as u8);
        payload.extend(url.as_bytes());
        m.push(0);
        m.push(payload.len() as u8);
        m.extend(payload);
        m
    }

    #[test]
    fn a_wasm_module_names_its_map_in_a_custom_section() {
        let module = module_naming("./trap.wasm.map");
        assert!(is_wasm(&module));
        assert_eq!(wasm_map_reference(None, &module).as_deref(), Some("./trap.wasm.map"));
        assert_eq!(wasm_map_reference(Some(" x.map "), &module).as_deref(), Some("x.map"), "the header first");
        // Without the section, cut short, or not a module: none, no panic.
        assert_eq!(wasm_map_reference(None, &module[..14]), None);
        assert_eq!(wasm_map_reference(None, b"\0asm\x01\0\0\0"), None);
        assert_eq!(wasm_map_reference(None, b"\0asm\x01\0\0\0\0\xff\xff\xff\xff\xff\xff"), None);
        assert!(!is_wasm(b"//# sourceMappingURL=a.map"));
    }

    use super::*;

    fn url(u: &str) -> Url {
        Url::parse(u).expect("a URL")
    }

    #[test]
    fn the_last_comment_names_the_map() {
        let script = "//# sourceMappingURL=old.map\nconsole.log(1)\n//# sourceMappingURL=main.js.map\n";
        assert_eq!(last_comment(script), Some("main.js.map"));
        assert_eq!(last_comment("x()\n//@ sourceMappingURL=legacy.map"), Some("legacy.map"));
        assert_eq!(last_comment("x()\n  //#  sourceMappingURL=a.map  \r\n"), Some("a.map"));
        assert_eq!(last_comment("x()"), None);
        assert_eq!(last_comment("var s = '//# sourceMappingURL=x.map'"), None, "not a comment that starts a line");
        assert_eq!(map_reference(Some(" /maps/a.map "), "//# sourceMappingURL=b.map"), Some("/maps/a.map"));
        assert_eq!(map_reference(None, "//# sourceMappingURL=b.map"), Some("b.map"));
    }

    #[test]
    fn references_resolve_against_the_script() {
        let script = url("http://localhost:3000/static/js/main.js?v=1");
        assert_eq!(
            resolve("main.js.map", &script),
            Ok(MapRef::Url(url("http://localhost:3000/static/js/main.js.map")))
        );
        assert_eq!(resolve("/m/a.map", &script), Ok(MapRef::Url(url("http://localhost:3000/m/a.map"))));
        assert_eq!(
            resolve("http://127.0.0.2:9/secret.map", &script),
            Ok(MapRef::Url(url("http://127.0.0.2:9/secret.map")))
        );
        assert_eq!(resolve("file:///etc/passwd", &script), Ok(MapRef::Url(url("file:///etc/passwd"))));
    }

    #[test]
    fn data_urls_are_the_map() {
        let script = url("http://localhost:5173/src/App.jsx");
        let json = br#"{"version":3}"#;
        let b64 = "eyJ2ZXJzaW9uIjozfQ==";
        for reference in [
            format!("data:application/json;base64,{b64}"),
            format!("data:application/json;charset=utf-8;base64,{b64}"),
            format!("data:application/json;charset=UTF-8;base64,{}", b64.trim_end_matches('=')),
            "data:application/json,%7B%22version%22%3A3%7D".to_string(),
        ] {
            assert_eq!(resolve(&reference, &script), Ok(MapRef::Inline(json.to_vec())), "{reference}");
        }
        assert_eq!(resolve("data:text/html;base64,PGI+", &script), Err(Unmapped::Invalid));
        assert_eq!(resolve("data:application/json;base64,@@@", &script), Err(Unmapped::Invalid));
        assert_eq!(resolve("data:application/json;base64", &script), Err(Unmapped::Invalid));
    }
}
