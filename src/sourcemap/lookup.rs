//! A generated position (1-based, as `Error.stack` writes it) → the original
//! one (1-based, as people read it) through a decoded map (0-based): the
//! source as the map names it, resolved against the map's URL and
//! `sourceRoot` and shown as a path, the name, up to three lines of context
//! from `sourcesContent` (secrets in them redacted, long lines cut to a window around the
//! column), and
//! whether it is library code (the map's ignore list marks it, it is in a
//! `node_modules` folder, or it is webpack's runtime or Parcel's overlay). Pure, but for asking whether a source
//! named by an absolute path is a file of this machine.

use serde::Serialize;
use sourcemap::{DecodedMap, SourceMap};
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
    /// 1-based; none where the map gives lines alone (webpack's and Rspack's `cheap-*` maps, Rsbuild's
    /// dev default, map each line to column 0 of its original line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The original name of the function the frame is in, where the stack names a minified one
    /// ([`super::function_name`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<Context>,
    /// Library code: the map's ignore list marks the source, or it is in a `node_modules` folder.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignored: bool,
    /// The file was saved again after this ran: the position and context are of the version that
    /// ran, mapped through its own map, which the dev server no longer serves.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
    /// Which webpack build the file is of (its `output.uniqueName`, as the map's `webpack://<name>/`
    /// says), where the page runs more than one with files of the same names (Module Federation's
    /// host and remotes): `src/api.ts` alone would not say whose.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
}

impl Original {
    /// A place that is the source's already, as written (no map: a dev server's own stack).
    pub fn as_written(source: &str, line: u32, column: u32) -> Original {
        Original {
            ignored: is_dependency(source),
            source: cut_chars(source, MAX_NAME_CHARS),
            line,
            column: Some(column),
            name: None,
            function: None,
            context: None,
            edited: false,
            build: None,
        }
    }
}

/// Lines of the original source around the position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Context {
    /// The 1-based line number of `lines[0]`.
    pub start: u32,
    pub lines: Vec<String>,
}

/// Whether the original file at `line`:`column` (1-based) of the version that ran (`ran`'s map)
/// reads the same in the version served now (`now`'s): a script served anew whose own file was
/// not saved (Vite's importer of a saved module: its import's `?t=` changed, and its length) is no
/// edit of that file. False where either map does not say the file's text.
pub fn same_source_text(ran: &DecodedMap, now: &DecodedMap, line: u32, column: u32) -> bool {
    let (Some(line0), Some(col0)) = (line.checked_sub(1), column.checked_sub(1)) else { return false };
    let Ok((sm, line0, col0)) = regular_at(ran, line0, col0, 0) else { return false };
    let Some(token) = sm.lookup_token(line0, col0) else { return false };
    let id = token.get_src_id();
    let (Some(name), Some(text)) = (sm.get_source(id), sm.get_source_contents(id)) else { return false };
    let now = match now {
        DecodedMap::Regular(sm) => sm,
        DecodedMap::Hermes(h) => &**h,
        DecodedMap::Index(_) => return false,
    };
    (0..now.get_source_count()).any(|i| now.get_source(i) == Some(name) && now.get_source_contents(i) == Some(text))
}

/// Looks up `line`:`column` (1-based) of the script the map belongs to.
/// `map_url` is what `sources` resolve against (the script's URL for an
/// inline map); `page` is the origin whose URLs are shown as paths.
pub fn lookup(map: &DecodedMap, line: u32, column: u32, map_url: &Url, page: &Url) -> Result<Original, Unmapped> {
    let (line0, col0) =
        (line.checked_sub(1).ok_or(Unmapped::OutOfRange)?, column.checked_sub(1).ok_or(Unmapped::OutOfRange)?);
    let (sm, line0, col0) = regular_at(map, line0, col0, 0)?;
    // No mapping at or before the position: what the bundler wrote ahead of the first module.
    let token = sm.lookup_token(line0, col0).ok_or(Unmapped::BundlerCode)?;
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
    // A line mapped by one segment, from its start to column 0 of its original line: the map
    // gives lines alone (a `cheap-*` map), and no column can be told.
    let lines_only = src_col == 0
        && sm.lookup_token(line0, u32::MAX).is_some_and(|last| last.get_dst_line() == line0 && last.get_dst_col() == 0);
    let context = sm.get_source_contents(src_id).and_then(|text| context(text, src_line, src_col));
    let source = display_source(raw_source, map_url, page);
    let source = served_under_a_base(&source, map_url, sm.get_file()).unwrap_or(source);
    Ok(Original {
        ignored: sm.ignore_list().any(|id| *id == src_id) || is_dependency(&source),
        source: cut_chars(&source, MAX_NAME_CHARS),
        line: src_line.saturating_add(1),
        column: (!lines_only).then(|| src_col.saturating_add(1)),
        name: token.get_name().filter(|n| !n.is_empty()).map(|n| cut_chars(n, MAX_NAME_CHARS)),
        function: None,
        context,
        edited: false,
        build: None,
    })
}

/// The webpack build (`webpack://<name>/…`) of the source the map gives for `line`:`column`
/// (1-based), if it names one.
pub fn build_at(map: &DecodedMap, line: u32, column: u32) -> Option<String> {
    let (sm, line0, col0) = regular_at(map, line.checked_sub(1)?, column.checked_sub(1)?, 0).ok()?;
    let token = sm.lookup_token(line0, col0)?;
    let source = sm.get_source(token.get_src_id())?;
    let (name, _) = source.strip_prefix("webpack://")?.split_once('/')?;
    (!name.is_empty()).then(|| cut_chars(name, MAX_NAME_CHARS))
}

/// A source in a `node_modules` folder or one of Vite's own modules ([`crate::kind::is_library_segment`]):
/// library code even where its map has no ignore list (a dependency Vite serves from
/// `/node_modules/` unbundled, SvelteKit's among them); a file a framework generated into its own folder
/// ([`GENERATED_FOLDERS`]); and the bundlers' own runtimes, which their maps name as no folder of
/// dependencies.
fn is_dependency(source: &str) -> bool {
    source
        .split(['/', '\\'])
        .any(|segment| crate::kind::is_library_segment(segment) || GENERATED_FOLDERS.contains(&segment))
        || WEBPACK_RUNTIME.iter().chain(&PARCEL_RUNTIME).any(|r| source.starts_with(r))
}

/// The folders frameworks write their generated code into, in the project beside its sources:
/// SvelteKit's `.svelte-kit/generated/client/app.js` (where it catches what a route's `load`
/// threw and logs it), Nuxt's `.nuxt/`, Next's `.next/`. The person does not edit them.
const GENERATED_FOLDERS: [&str; 3] = [".svelte-kit", ".nuxt", ".next"];

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
/// a URL of the page's origin as its path ("src/App.jsx"), under Parcel's
/// `/__parcel_source_root/` (the project's root) as the path after it; a name the
/// map writes as an absolute path of a file on this machine (Rsbuild's) as that path;
/// webpack's runtime (`webpack/bootstrap`, `webpack/runtime/…`) as webpack names it;
/// a `file:` URL as its path; anything else as resolved.
pub fn display_source(raw: &str, map_url: &Url, page: &Url) -> String {
    if WEBPACK_RUNTIME.iter().any(|r| raw.starts_with(r)) {
        return raw.to_string();
    }
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
        // On the page's origin, or on the map's: a dev server beside the page's backend (Vite on
        // :5173 for a page on :8000) names its files by paths of its own origin.
        "http" | "https" if resolved.origin() == page.origin() || resolved.origin() == map_url.origin() => {
            // Vite serves files outside the root under /@fs/<absolute path> (after its base, if
            // it has one: Nuxt's /_nuxt/@fs/…).
            if let Some(at) = path.find("/@fs/") {
                return path[at + "/@fs".len()..].to_string();
            }
            if let Some(rest) = path.strip_prefix(PARCEL_ROOT) {
                return rest.to_string();
            }
            // Rsbuild names sources by their absolute paths: one naming a file of this machine
            // is that file, not a path of the dev server's.
            if raw.starts_with('/') && !raw.starts_with("//") && path == raw && is_local_file(&path) {
                return path;
            }
            path.trim_start_matches('/').to_string()
        }
        "file" => path,
        _ => raw.to_string(),
    }
}

/// Where Parcel's dev server serves the project's root, which its maps name as their `sourceRoot`.
const PARCEL_ROOT: &str = "/__parcel_source_root/";
/// The names webpack and Rspack give their own runtime's code (library code, no file of the project).
const WEBPACK_RUNTIME: [&str; 2] = ["webpack/bootstrap", "webpack/runtime/"];

/// Parcel's error overlay, which wraps `console.error`: its map names it by the path it has in
/// Parcel's own repository, under the project's root, with no ignore list.
const PARCEL_RUNTIME: [&str; 1] = ["packages/utils/error-overlay/"];

/// Whether `path` (absolute) names a file of this machine. The server runs beside the dev server
/// whose maps it reads; a path that exists nowhere here (a dev server in a container) stays a URL's.
fn is_local_file(path: &str) -> bool {
    path.len() < 4096 && std::path::Path::new(path).is_file()
}

/// A module a dev server serves under a base (Nuxt's `/_nuxt/`: `/_nuxt/components/Panel.vue` is
/// `<root>/components/Panel.vue`) maps to its own URL, which is no path of the project: shown as
/// the absolute path its map's `file` names (Vite writes the module's file there), when that path
/// ends with the URL's path after the base. None when `source` is not the map's own module, or
/// no base stands before it.
fn served_under_a_base(source: &str, map_url: &Url, file: Option<&str>) -> Option<String> {
    let file = file.filter(|f| f.starts_with('/'))?;
    if percent_decode(map_url.path()).trim_start_matches('/') != source {
        return None;
    }
    // The longest end of the URL's path (whole segments) that the file's path ends with.
    let segments: Vec<&str> = source.split('/').collect();
    let base = (0..segments.len()).find(|&i| file.ends_with(&format!("/{}", segments[i..].join("/"))))?;
    (base > 0).then(|| file.to_string())
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
        // After a dev server's base (Nuxt's /_nuxt/).
        assert_eq!(display_source("/_nuxt/@fs/home/me/lib/x.js", &script, &page), "/home/me/lib/x.js");
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
        // Parcel: the project's root is served under /__parcel_source_root/.
        let parcel = url("http://127.0.0.1:1234/index.4a1b.js.map");
        assert_eq!(display_source("/__parcel_source_root/src/App.tsx", &parcel, &page_of(&parcel)), "src/App.tsx");
        // Rsbuild: absolute paths; one of a file here is that file, another a path of the server's.
        let rsbuild = url("http://127.0.0.1:3100/static/js/index.js.map");
        let here = std::env::current_dir().expect("cwd").join("Cargo.toml");
        let here = here.to_str().expect("a UTF-8 path");
        assert_eq!(display_source(here, &rsbuild, &page_of(&rsbuild)), here);
        assert_eq!(display_source("/src/not/a/file/here.ts", &rsbuild, &page_of(&rsbuild)), "src/not/a/file/here.ts");
        // webpack's and Rspack's runtime, as they name it, is library code.
        assert_eq!(display_source("webpack/bootstrap", &rsbuild, &page_of(&rsbuild)), "webpack/bootstrap");
        assert_eq!(
            display_source("webpack://app/webpack/runtime/jsonp", &rsbuild, &page_of(&rsbuild)),
            "webpack/runtime/jsonp"
        );
        assert!(is_dependency("webpack/bootstrap") && is_dependency("webpack/runtime/jsonp"));
        assert!(!is_dependency("src/webpack/bootstrap.ts"));
        assert!(is_dependency("packages/utils/error-overlay/src/listenToRuntimeErrors.js"));
        assert!(!is_dependency("packages/web/src/App.tsx"));
    }

    fn page_of(u: &Url) -> Url {
        u.join("/").expect("the origin's root")
    }

    #[test]
    fn a_module_served_under_a_base_is_named_by_its_file() {
        let page = url("http://127.0.0.1:3000/");
        let module = url("http://127.0.0.1:3000/_nuxt/components/BuggyPanel.vue?t=1");
        let source = display_source("BuggyPanel.vue", &module, &page);
        assert_eq!(source, "_nuxt/components/BuggyPanel.vue");
        let file = Some("/home/me/shop/app/components/BuggyPanel.vue");
        assert_eq!(
            served_under_a_base(&source, &module, file).as_deref(),
            Some("/home/me/shop/app/components/BuggyPanel.vue")
        );
        // Without a base (Vite's default) the URL's path is the project's: kept.
        let vite = url("http://localhost:5173/src/App.jsx");
        assert_eq!(served_under_a_base("src/App.jsx", &vite, Some("/home/me/app/src/App.jsx")), None);
        // A bundle's source is not the bundle's own module; a relative or foreign file says nothing.
        let bundle = url("http://localhost:3000/assets/app.js");
        assert_eq!(served_under_a_base("src/app.js", &bundle, Some("/home/me/app/dist/app.js")), None);
        assert_eq!(served_under_a_base(&source, &module, Some("BuggyPanel.vue")), None);
        assert_eq!(served_under_a_base(&source, &module, Some("/home/me/other/Thing.vue")), None);
    }

    #[test]
    fn a_map_of_lines_alone_gives_no_column() {
        let page = url("http://127.0.0.1:3100/");
        let at = url("http://127.0.0.1:3100/static/js/index.js");
        // Rsbuild's dev default (cheap-module-source-map): one segment a line, to column 0.
        let cheap =
            sourcemap::decode_slice(br#"{"version":3,"sources":["cart.ts"],"names":[],"mappings":"AAAA;AACA;AACA"}"#)
                .expect("a map");
        let thrown = lookup(&cheap, 3, 11, &at, &page).expect("line 3 maps");
        assert_eq!((thrown.line, thrown.column), (3, None));
        // A map with columns: a segment at column 0 of the original is column 1, as it says.
        let full =
            sourcemap::decode_slice(br#"{"version":3,"sources":["cart.ts"],"names":[],"mappings":"AAAA,UAAU;AACV"}"#)
                .expect("a map");
        assert_eq!(lookup(&full, 1, 1, &at, &page).expect("maps").column, Some(1));
        assert_eq!(lookup(&full, 1, 11, &at, &page).expect("maps").column, Some(11));
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
        assert!(is_dependency("/home/me/app/.svelte-kit/generated/client/app.js") && is_dependency(".nuxt/app.vue"));
        assert!(!is_dependency("src/routes/.svelte-kit-notes/page.js") && !is_dependency("src/lib/next.js"));
        assert!(is_dependency("@vite/client") && is_dependency("/@vite/client") && is_dependency("@react-refresh"));
        assert!(is_dependency("@solid-refresh"), "vite-plugin-solid's HMR wrapper");
        assert!(!is_dependency("src/@vite-notes.ts") && !is_dependency("src/vite/client.ts"));
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
