//! A generated position (1-based, as `Error.stack` writes it) → the original
//! one (1-based, as people read it) through a decoded map (0-based): the
//! source as the map names it, resolved against the map's URL and
//! `sourceRoot` and shown as a path, the name, up to three lines of context
//! from `sourcesContent` (secrets in them redacted, long lines cut to a window around the
//! column), and
//! whether it is library code (the map's ignore list marks it, or it is in a
//! `node_modules` folder). Pure.

use serde::Serialize;
use sourcemap::{DecodedMap, SourceMap, SourceView};
use url::Url;

use super::parse::MAX_SECTION_DEPTH;
use super::{Unmapped, secrets};

/// Characters of a context line kept around the column.
pub const CONTEXT_WINDOW: usize = 160;
/// Longest `source` and `name` kept, in characters.
const MAX_NAME_CHARS: usize = 300;

/// Where a generated position came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Original {
    /// The source's path as the map names it (a URL of the page's origin shown as its path).
    pub source: String,
    /// 1-based.
    pub line: u32,
    /// 1-based.
    pub column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The original name of the function the frame is in, where the stack names a minified one
    /// ([`original_function`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<Context>,
    /// Library code: the map's ignore list marks the source, or it is in a `node_modules` folder.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignored: bool,
}

/// Lines of the original source around the position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Context {
    /// The 1-based line number of `lines[0]`.
    pub start: u32,
    pub lines: Vec<String>,
}

/// Looks up `line`:`column` (1-based) of the script the map belongs to.
/// `map_url` is what `sources` resolve against (the script's URL for an
/// inline map); `page` is the origin whose URLs are shown as paths.
pub fn lookup(map: &DecodedMap, line: u32, column: u32, map_url: &Url, page: &Url) -> Result<Original, Unmapped> {
    let (line0, col0) =
        (line.checked_sub(1).ok_or(Unmapped::OutOfRange)?, column.checked_sub(1).ok_or(Unmapped::OutOfRange)?);
    let (sm, line0, col0) = regular_at(map, line0, col0, 0)?;
    let token = sm.lookup_token(line0, col0).ok_or(Unmapped::OutOfRange)?;
    // A token on an earlier line maps other code: this position has none.
    if token.get_dst_line() != line0 || !token.has_source() {
        return Err(Unmapped::OutOfRange);
    }
    let src_id = token.get_src_id();
    let raw_source = sm.get_source(src_id).ok_or(Unmapped::OutOfRange)?;
    let (src_line, src_col) = (token.get_src_line(), token.get_src_col());
    if src_line == u32::MAX || src_col == u32::MAX {
        return Err(Unmapped::OutOfRange);
    }
    let context = sm.get_source_contents(src_id).and_then(|text| context(text, src_line, src_col));
    let source = display_source(raw_source, map_url, page);
    Ok(Original {
        ignored: sm.ignore_list().any(|id| *id == src_id) || is_dependency(&source),
        source: cut_chars(&source, MAX_NAME_CHARS),
        line: src_line.saturating_add(1),
        column: src_col.saturating_add(1),
        name: token.get_name().filter(|n| !n.is_empty()).map(|n| cut_chars(n, MAX_NAME_CHARS)),
        function: None,
        context,
    })
}

/// The original name of the function a frame at `line`:`column` (1-based) is in, when the stack
/// names it by a minified name (`function` as the stack gives it: `c`, `HTMLButtonElement.c`,
/// `async p`): the nearest declaration of that name before the position in the script's own text
/// (`function c`, `async function c`, `c=function`, `c=(…)=>`, `c=async…`), and the name the map
/// gives that identifier. A refinement of Sentry's heuristic, which walks the map's tokens and so
/// misses `async function`. None when no such declaration is near, when the map names none there,
/// or when it is the name the stack already gives.
pub fn original_function(
    map: &DecodedMap,
    line: u32,
    column: u32,
    function: &str,
    script: &SourceView,
) -> Option<String> {
    // The last identifier of "async Object.c" or "new c".
    let minified = function.rsplit([' ', '.']).next().filter(|n| is_identifier(n))?;
    let (mut line0, col0) = (line.checked_sub(1)?, column.checked_sub(1)?);
    let text = script.get_line(line0)?;
    let mut before = &text[..byte_at_utf16(text, col0)?];
    let mut read = 0;
    loop {
        if let Some(at) = last_declaration(before, minified) {
            let col16 = before[..at].encode_utf16().count() as u32;
            let token = map.lookup_token(line0, col16)?;
            if token.get_dst() != (line0, col16) {
                return None;
            }
            let original = token.get_name().filter(|n| !n.is_empty() && *n != minified)?;
            return Some(cut_chars(original, MAX_NAME_CHARS));
        }
        read += before.len();
        if read >= DECLARATION_WINDOW || line0 == 0 {
            return None;
        }
        line0 -= 1;
        let previous = script.get_line(line0)?;
        let mut from = previous.len().saturating_sub(DECLARATION_WINDOW - read);
        while !previous.is_char_boundary(from) {
            from += 1;
        }
        before = &previous[from..];
    }
}

/// Bytes of script before a frame searched for its function's declaration.
const DECLARATION_WINDOW: usize = 256 * 1024;

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c == '$' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c == '$' || c.is_alphanumeric())
}

fn is_identifier_char(c: char) -> bool {
    c == '_' || c == '$' || c.is_alphanumeric()
}

/// The byte offset of UTF-16 column `col` in `line` (None past its end).
fn byte_at_utf16(line: &str, col: u32) -> Option<usize> {
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= col {
            return Some(i);
        }
        units += c.len_utf16() as u32;
    }
    (units >= col).then_some(line.len())
}

/// Where the last declaration of `name` in `text` names it: `function name`, `function* name`,
/// `name=function`, `name=(`, `name=async`, `name=x=>`.
fn last_declaration(text: &str, name: &str) -> Option<usize> {
    let mut end = text.len();
    while let Some(at) = text[..end].rfind(name) {
        end = at;
        let (head, tail) = (&text[..at], &text[at + name.len()..]);
        let whole = !head.ends_with(is_identifier_char) && !tail.starts_with(is_identifier_char);
        if !whole {
            continue;
        }
        let head = head.trim_end();
        let declared = head.strip_suffix('*').unwrap_or(head).trim_end().ends_with("function")
            && !head.trim_end_matches('*').trim_end().trim_end_matches("function").ends_with(is_identifier_char);
        let tail = tail.trim_start();
        let assigned = tail.strip_prefix('=').is_some_and(|value| {
            let value = value.trim_start();
            !value.starts_with('=')
                && (value.starts_with("function") || value.starts_with('(') || value.starts_with("async") || {
                    let ident: String = value.chars().take_while(|c| is_identifier_char(*c)).collect();
                    !ident.is_empty() && value[ident.len()..].trim_start().starts_with("=>")
                })
        });
        if declared || assigned {
            return Some(at);
        }
    }
    None
}

/// A source in a `node_modules` folder: library code even where its map has no ignore list (a
/// dependency Vite serves from `/node_modules/` unbundled, SvelteKit's among them), as DevTools'
/// own default ignore-list rule has it.
fn is_dependency(source: &str) -> bool {
    source.split(['/', '\\']).any(|segment| segment == "node_modules")
}

/// The regular map holding a position, and the position inside it, through
/// the sections of an index map (at most [`MAX_SECTION_DEPTH`] deep).
fn regular_at(map: &DecodedMap, line: u32, col: u32, depth: usize) -> Result<(&SourceMap, u32, u32), Unmapped> {
    match map {
        DecodedMap::Regular(sm) => Ok((sm, line, col)),
        DecodedMap::Hermes(h) => Ok((&**h, line, col)),
        DecodedMap::Index(index) => {
            if depth >= MAX_SECTION_DEPTH {
                return Err(Unmapped::Invalid);
            }
            // The last section starting at or before the position (sections are sorted).
            let count = index.get_section_count();
            let (mut lo, mut hi) = (0u32, count);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let starts_before = index.get_section(mid).is_some_and(|s| s.get_offset() <= (line, col));
                if starts_before { lo = mid + 1 } else { hi = mid }
            }
            let section = lo.checked_sub(1).and_then(|i| index.get_section(i)).ok_or(Unmapped::OutOfRange)?;
            // A section naming its map by URL (not embedded) is not fetched.
            let inner = section.get_sourcemap().ok_or(Unmapped::NotFound)?;
            let (off_line, off_col) = section.get_offset();
            let inner_col = if line == off_line { col - off_col } else { col };
            regular_at(inner, line - off_line, inner_col, depth + 1)
        }
    }
}

/// How a source is shown: `webpack://`/`webpack-internal:///` names as the
/// paths they are, without the query webpack adds (`?e0eb` from eval-source-map,
/// a Vue file's `?vue&type=script`) or Next.js's layer (`(app-pages-browser)/`);
/// a URL of the page's origin as its path ("src/App.jsx"); a `file:` URL as its
/// path; anything else as resolved.
pub fn display_source(raw: &str, map_url: &Url, page: &Url) -> String {
    for scheme in ["webpack-internal:///", "webpack://"] {
        if let Some(rest) = raw.strip_prefix(scheme) {
            // webpack://<namespace>/./src/App.js → src/App.js
            let path = if scheme == "webpack://" { rest.split_once('/').map_or(rest, |(_, p)| p) } else { rest };
            let path = path.split_once('?').map_or(path, |(p, _)| p);
            let path = match path.strip_prefix('(').and_then(|p| p.split_once(")/")) {
                Some((_, after)) => after,
                None => path,
            };
            return path.trim_start_matches("./").to_string();
        }
    }
    let Ok(resolved) = map_url.join(raw) else { return raw.to_string() };
    let path = percent_decode(resolved.path());
    match resolved.scheme() {
        "http" | "https" if resolved.origin() == page.origin() => {
            // Vite serves files outside the root under /@fs/<absolute path>.
            match path.strip_prefix("/@fs/") {
                Some(abs) => format!("/{abs}"),
                None => path.trim_start_matches('/').to_string(),
            }
        }
        "file" => path,
        _ => raw.to_string(),
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: Option<&u8>| b.and_then(|b| (*b as char).to_digit(16)).map(|d| d as u8);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (hex(bytes.get(i + 1)), hex(bytes.get(i + 2)))
        {
            out.push(h << 4 | l);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The line before, the line and the line after (0-based `line`), each with its secrets
/// redacted ([`secrets`]) and cut to [`CONTEXT_WINDOW`] characters around `col`. None when the
/// source has no such line.
fn context(text: &str, line: u32, col: u32) -> Option<Context> {
    let line = line as usize;
    let first = line.saturating_sub(1);
    let lines: Vec<&str> = text.split('\n').skip(first).take(line - first + 2).collect();
    if lines.len() <= line - first {
        return None;
    }
    let lines = lines.iter().map(|l| window(&secrets::redact_line(l.trim_end_matches('\r')), col as usize)).collect();
    Some(Context { start: first as u32 + 1, lines })
}

/// A line cut to [`CONTEXT_WINDOW`] characters around `col`, "…" where cut.
fn window(line: &str, col: usize) -> String {
    let chars = line.chars().count();
    if chars <= CONTEXT_WINDOW {
        return line.to_string();
    }
    let start = col.saturating_sub(CONTEXT_WINDOW / 2).min(chars - CONTEXT_WINDOW);
    let mut out: String = line.chars().skip(start).take(CONTEXT_WINDOW).collect();
    if start > 0 {
        out.insert(0, '…');
    }
    if start + CONTEXT_WINDOW < chars {
        out.push('…');
    }
    out
}

fn cut_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use sourcemap::SourceMapBuilder;

    /// A one-line minified script and a map naming its declarations as a minifier would.
    fn minified() -> (DecodedMap, SourceView, &'static str) {
        let code =
            "function a(t){return t.x}async function b(e){throw new Error(e)}var c=(e)=>{a(e)},d=async()=>{throw 1};";
        let mut builder = SourceMapBuilder::new(None);
        let src = builder.add_source("src/app.ts");
        for (needle, name) in [("a(t)", "readX"), ("b(e)", "loadProfile"), ("c=(", "onClick"), ("d=async", "save")] {
            let col = code.find(needle).unwrap_or(0) as u32;
            let name = builder.add_name(name);
            builder.add_raw(0, col, 1, 0, Some(src), Some(name), false);
        }
        for needle in ["return", "throw new", "a(e)}", "throw 1"] {
            let col = code.find(needle).unwrap_or(0) as u32;
            builder.add_raw(0, col, 2, 0, Some(src), None, false);
        }
        (DecodedMap::Regular(builder.into_sourcemap()), SourceView::from_string(code.to_string()), code)
    }

    #[test]
    fn a_minified_function_s_declaration_gives_its_original_name() {
        let (map, script, code) = minified();
        let at = |needle: &str| code.find(needle).map_or(0, |i| i as u32 + 1);
        let name = |needle: &str, function: &str| original_function(&map, 1, at(needle), function, &script);
        assert_eq!(name("return", "a").as_deref(), Some("readX"));
        assert_eq!(name("throw new", "async b").as_deref(), Some("loadProfile"), "async function");
        assert_eq!(name("a(e)}", "HTMLButtonElement.c").as_deref(), Some("onClick"), "an arrow function assigned");
        assert_eq!(name("throw 1", "d").as_deref(), Some("save"), "an async arrow function assigned");
        assert_eq!(name("throw new", "z"), None, "no declaration of that name");
        assert_eq!(name("throw new", "Object.<anonymous>"), None);
        assert_eq!(name("return", "readX"), None, "no minified name: nothing to give back");
    }

    use super::*;

    fn url(u: &str) -> Url {
        Url::parse(u).expect("a URL")
    }

    #[test]
    fn sources_show_as_paths() {
        let page = url("http://localhost:5173/");
        let script = url("http://localhost:5173/src/App.jsx?t=1732400000000");
        assert_eq!(display_source("App.jsx", &script, &page), "src/App.jsx");
        let deps = url("http://localhost:5173/node_modules/.vite/deps/react-dom_client.js.map");
        assert_eq!(
            display_source("../../react-dom/cjs/react-dom-client.development.js", &deps, &page),
            "node_modules/react-dom/cjs/react-dom-client.development.js"
        );
        assert_eq!(display_source("/@fs/home/me/lib/x.js", &script, &page), "/home/me/lib/x.js");
        assert_eq!(display_source("webpack://my-app/./src/App.js", &script, &page), "src/App.js");
        assert_eq!(display_source("webpack-internal:///./src/App.js", &script, &page), "src/App.js");
        assert_eq!(display_source("webpack://app/./src/util.js?e0eb", &script, &page), "src/util.js");
        assert_eq!(
            display_source("webpack://app/./src/App.vue?vue&type=script&lang.js", &script, &page),
            "src/App.vue"
        );
        assert_eq!(
            display_source("webpack-internal:///(app-pages-browser)/./src/app/page.js", &script, &page),
            "src/app/page.js"
        );
        assert_eq!(display_source("file:///home/me/app/src/a.ts", &script, &page), "/home/me/app/src/a.ts");
        // A module webpack ran through eval: its sources resolve against its own name, and Next.js
        // names them by absolute file paths.
        let module = Url::parse("webpack-internal:///(app-pages-browser)/./app/util.js").expect("a URL");
        assert_eq!(display_source("/home/me/app/app/util.js", &module, &page), "/home/me/app/app/util.js");
        assert_eq!(display_source("util.js", &module, &page), "util.js");
        assert_eq!(display_source("https://cdn.example/lib.js", &script, &page), "https://cdn.example/lib.js");
        assert_eq!(display_source("my%20file.js", &script, &page), "src/my file.js");
    }

    #[test]
    fn a_source_in_node_modules_is_library_code_without_an_ignore_list() {
        // SvelteKit's client as Vite serves it unbundled: its map has no ignoreList.
        let map =
            br#"{"version":3,"sources":["client.js","/src/routes/+page.svelte"],"names":[],"mappings":"AAAA;ACAA"}"#;
        let map = sourcemap::decode_slice(map).expect("a map");
        let page = url("http://localhost:5173/");
        let at = url("http://localhost:5173/node_modules/@sveltejs/kit/src/runtime/client/client.js?v=1");
        let kit = lookup(&map, 1, 1, &at, &page).expect("line 1 maps");
        assert_eq!(
            (kit.source.as_str(), kit.ignored),
            ("node_modules/@sveltejs/kit/src/runtime/client/client.js", true)
        );
        let own = lookup(&map, 2, 1, &at, &page).expect("line 2 maps");
        assert_eq!((own.source.as_str(), own.ignored), ("src/routes/+page.svelte", false));
        assert!(is_dependency("C:\\app\\node_modules\\x.js") && is_dependency("node_modules/x.js"));
        assert!(!is_dependency("src/node_modules_list.js") && !is_dependency("src/App.jsx"));
    }

    #[test]
    fn context_is_three_lines_cut_around_the_column() {
        let text = "a\nb\nc\nd";
        assert_eq!(context(text, 0, 0), Some(Context { start: 1, lines: vec!["a".into(), "b".into()] }));
        assert_eq!(context(text, 2, 0), Some(Context { start: 2, lines: vec!["b".into(), "c".into(), "d".into()] }));
        assert_eq!(context(text, 3, 0), Some(Context { start: 3, lines: vec!["c".into(), "d".into()] }));
        assert_eq!(context(text, 9, 0), None);
        let long = format!("{}X{}", "a".repeat(1000), "b".repeat(1000));
        let cut = window(&long, 1000);
        assert!(cut.starts_with('…') && cut.ends_with('…'), "{cut}");
        assert!(cut.contains('X'));
        assert_eq!(cut.chars().count(), CONTEXT_WINDOW + 2);
        assert!(window(&long, 0).starts_with("aaa"));
        assert!(window(&long, 5000).ends_with("bbb"));
    }
}
