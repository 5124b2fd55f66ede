//! Source maps of real bundles (tests/fixtures/sourcemap/, made by esbuild:
//! `make.mjs`) through the server's parser and lookup: a webpack-style
//! external map, inline `data:` maps with and without a charset, a minified
//! bundle with names, an index (sectioned) map, ignore lists; and maps that
//! are malformed or crafted, which give a reason and never a panic.

use std::path::{Path, PathBuf};

use gasoline::sourcemap::Unmapped;
use gasoline::sourcemap::function_name::original_function;
use gasoline::sourcemap::locate::{self, MapRef};
use gasoline::sourcemap::lookup::{Original, lookup};
use gasoline::sourcemap::parse::{MAX_SEPARATORS, parse};
use sourcemap::SourceView;
use url::Url;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sourcemap").join(path)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(fixture(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The 1-based line and column (UTF-16 units; these files are ASCII) of `needle` in `code`.
fn position(code: &str, needle: &str) -> (u32, u32) {
    let at = code.find(needle).unwrap_or_else(|| panic!("{needle} not in the bundle"));
    let line = code[..at].matches('\n').count() as u32 + 1;
    let start = code[..at].rfind('\n').map_or(0, |n| n + 1);
    (line, (at - start) as u32 + 1)
}

/// The 1-based line of `needle` in the original file.
fn original_line(source: &str, needle: &str) -> u32 {
    position(&read(&format!("src/{source}")), needle).0
}

const PAGE: &str = "http://localhost:3000/";

fn url(u: &str) -> Url {
    Url::parse(u).expect("a URL")
}

/// Resolves `needle`'s position in the script `script` (served at `script_url`) through its map.
fn resolve(script: &str, script_url: &str, needle: &str) -> Result<Original, Unmapped> {
    let code = read(script);
    let script_url = url(script_url);
    let reference = locate::last_comment(&code).expect("a sourceMappingURL comment");
    let (bytes, map_url) = match locate::resolve(reference, &script_url)? {
        MapRef::Inline(bytes) => (bytes, script_url.clone()),
        MapRef::Url(map_url) => {
            let name = map_url.path().trim_start_matches('/').to_string();
            (std::fs::read(fixture(&name)).expect("the map beside the script"), map_url)
        }
    };
    let parsed = parse(&bytes)?;
    let (line, column) = position(&code, needle);
    lookup(&parsed.map, line, column, &map_url, &url(PAGE))
}

#[test]
fn a_webpack_style_external_map_names_the_module_path() {
    let got = resolve("webpack/main.js", "http://localhost:3000/webpack/main.js", "throw new Error").expect("mapped");
    assert_eq!(got.source, "src/cart.js", "webpack://my-app/./src/cart.js is shown as the path it is");
    assert_eq!(got.line, original_line("cart.js", "throw new Error"));
    assert_eq!(got.column, Some(position(&read("src/cart.js"), "throw new Error").1));
    let context = got.context.expect("sourcesContent gives context");
    assert_eq!(context.start, got.line - 1);
    assert_eq!(context.lines.len(), 3);
    assert!(context.lines[1].contains("throw new Error(\"checkout without a customer\")"), "{context:?}");
    assert!(!got.ignored);
}

#[test]
fn inline_data_maps_with_and_without_a_charset() {
    for script in ["inline/plain.js", "inline/charset.js"] {
        let got = resolve(script, "http://localhost:3000/inline/app.js", "euros.toFixed").expect(script);
        assert_eq!(got.source, "inline/src/money.js", "{script}: sources resolve against the script's URL");
        assert_eq!(got.line, original_line("money.js", "euros.toFixed"), "{script}");
    }
}

#[test]
fn a_minified_bundle_gives_names_and_original_lines() {
    let code = read("minified/app.min.js");
    assert_eq!(code.lines().count(), 2, "one line of code and the comment");
    let at = "http://localhost:3000/minified/app.min.js";
    let thrown = resolve("minified/app.min.js", at, "throw new Error").expect("mapped");
    assert_eq!((thrown.source.as_str(), thrown.line), ("src/cart.js", original_line("cart.js", "throw new Error")));
    // The call of the minified `e` is formatPrice's.
    let call = resolve("minified/app.min.js", at, "e(t)),t}").expect("mapped");
    assert_eq!(call.name.as_deref(), Some("formatPrice"));
    assert_eq!(call.line, original_line("cart.js", "formatPrice(total)"));
}

/// The stack names the minified function (`c`); the script's text and the map's names give back
/// the original (`checkout`), for declarations; an arrow function or a name the stack already
/// gives right gets none.
#[test]
fn a_minified_function_gets_its_original_name_back() {
    let code = read("minified/app.min.js");
    let map = parse(&std::fs::read(fixture("minified/app.min.js.map")).expect("map")).expect("a map");
    assert!(gasoline::sourcemap::parse::has_names(&map.map));
    let script = SourceView::from_string(code.clone());
    let (line, column) = position(&code, "throw new Error");
    let name = |function: &str| original_function(&map.map, line, column, function, &script);
    assert_eq!(name("c").as_deref(), Some("checkout"));
    assert_eq!(name("Object.c").as_deref(), Some("checkout"));
    assert_eq!(name("async c").as_deref(), Some("checkout"));
    let (line, column) = position(&code, "(r/100)");
    assert_eq!(original_function(&map.map, line, column, "e", &script).as_deref(), Some("formatPrice"));
    // window.run is an arrow function: nothing to find, nothing made up.
    let (line, column) = position(&code, "i(()=>c(");
    assert_eq!(original_function(&map.map, line, column, "window.run", &script), None);
}

/// esbuild writes a class that refers to itself as `var c=class e{…}`: the stack names its method
/// `e.checkout`; the name given back is the source's class, not esbuild's inner `_CartService`.
#[test]
fn a_minified_class_s_method_gets_its_class_s_original_name() {
    let code = read("minified/service.min.js");
    let map = parse(&std::fs::read(fixture("minified/service.min.js.map")).expect("map")).expect("a map");
    let script = SourceView::from_string(code.clone());
    let (line, column) = position(&code, "throw new Error");
    assert_eq!(
        original_function(&map.map, line, column, "e.checkout", &script).as_deref(),
        Some("CartService.checkout")
    );
    let (line, column) = position(&code, "new e(t)");
    assert_eq!(original_function(&map.map, line, column, "Function.of", &script), None, "not a class of that name");
    assert_eq!(original_function(&map.map, line, column, "e.of", &script).as_deref(), Some("CartService.of"));
    // The arrow after the class is no method of it.
    let (line, column) = position(&code, "c.of([");
    assert_eq!(original_function(&map.map, line, column, "e.runService", &script), None);
}

#[test]
fn an_index_map_resolves_in_each_section() {
    let at = "http://localhost:3000/index/bundle.js";
    let code = read("index/bundle.js");
    let first = resolve("index/bundle.js", at, "throw new Error").expect("first section");
    assert_eq!((first.source.as_str(), first.line), ("index/src/cart.js", original_line("cart.js", "throw new Error")));
    // The second section repeats the code: its throw is found after the first.
    let second_at = code.rfind("throw new Error").expect("a second throw");
    assert!(second_at > code.find("throw new Error").unwrap_or(usize::MAX));
    let parsed = parse(&std::fs::read(fixture("index/bundle.js.map")).expect("map")).expect("an index map");
    let line = code[..second_at].matches('\n').count() as u32 + 1;
    let column = (second_at - code[..second_at].rfind('\n').map_or(0, |n| n + 1)) as u32 + 1;
    let second = lookup(&parsed.map, line, column, &url(at), &url(PAGE)).expect("second section");
    assert_eq!(
        (second.source.as_str(), second.line),
        ("index/src/cart.js", original_line("cart.js", "throw new Error"))
    );
    assert!(line > first.line, "the second section starts on a later line");
}

#[test]
fn ignore_lists_flag_library_frames() {
    for script in ["ignore/app.js", "ignore/google.js"] {
        let at = format!("http://localhost:3000/{script}");
        let vendor = resolve(script, &at, "return fn()").expect(script);
        assert_eq!(vendor.source, "ignore/src/vendor.js");
        assert!(vendor.ignored, "{script}: vendor.js is on the ignore list");
        let own = resolve(script, &at, "throw new Error").expect(script);
        assert!(!own.ignored, "{script}: cart.js is not");
    }
}

#[test]
fn positions_outside_the_mappings_are_out_of_range() {
    let parsed = parse(&std::fs::read(fixture("minified/app.min.js.map")).expect("map")).expect("a map");
    let script = url("http://localhost:3000/minified/app.min.js");
    for (line, column) in [(2, 1), (50, 1), (u32::MAX, u32::MAX), (0, 1), (1, 0)] {
        assert_eq!(
            lookup(&parsed.map, line, column, &script, &url(PAGE)),
            Err(Unmapped::OutOfRange),
            "{line}:{column}"
        );
    }
}

/// esbuild writes its helpers (`__async`, `__spreadValues`) at the top of a chunk, ahead of the
/// first module it maps: a frame there is the bundler's code, which compact entries count as
/// library code, not a line of the app the map could not place.
#[test]
fn positions_before_the_first_mapping_are_the_bundler_s_code() {
    let map = br#"{"version":3,"sources":["src/main.ts"],"names":[],"mappings":";;AAAA,IAAI"}"#;
    let parsed = parse(map).expect("a map");
    let script = url("http://localhost:4200/main.js");
    for (line, column) in [(1, 1), (1, 400), (2, 9)] {
        assert_eq!(
            lookup(&parsed.map, line, column, &script, &url(PAGE)),
            Err(Unmapped::BundlerCode),
            "{line}:{column}"
        );
    }
    let own = lookup(&parsed.map, 3, 5, &script, &url(PAGE)).expect("the module's own line");
    assert_eq!((own.source.as_str(), own.line), ("src/main.ts", 1));
}

#[test]
fn malformed_and_crafted_maps_give_a_reason() {
    let invalid: &[&[u8]] = &[
        b"",
        b"not json",
        b"<!doctype html><title>404</title>",
        b"[]",
        br#"{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAAC"}"#, // a name out of range
        br#"{"version":3,"sources":[],"names":[],"mappings":"AAAA"}"#,       // a source out of range
        br#"{"version":3,"sources":["a.js"],"mappings":"A$$$"}"#,
        br#"{"version":3,"sources":["a.js"],"mappings":"gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggA"}"#,
    ];
    for bytes in invalid {
        assert_eq!(parse(bytes).err(), Some(Unmapped::Invalid), "{}", String::from_utf8_lossy(bytes));
    }
    let declared = format!(r#"{{"version":3,"sources":["a.js"],"mappings":"{}"}}"#, ",".repeat(MAX_SEPARATORS + 1));
    assert_eq!(parse(declared.as_bytes()).err(), Some(Unmapped::TooLarge));

    // A section naming its map by URL is never fetched.
    let external =
        br#"{"version":3,"sections":[{"offset":{"line":0,"column":0},"url":"http://169.254.169.254/x.map"}]}"#;
    let parsed = parse(external).expect("an index map");
    let got = lookup(&parsed.map, 1, 1, &url("http://localhost:3000/a.js"), &url(PAGE));
    assert_eq!(got, Err(Unmapped::NotFound));
}
