//! Modules webpack runs through `eval` (its `eval-source-map` and
//! `eval-cheap-module-source-map` devtools, Next.js's webpack dev default):
//! each module's code is a string in the bundle, passed to `eval`, ending with
//! its own inline map and a `//# sourceURL=webpack-internal:///./src/util.js`
//! comment. Chrome names the module's frames by that sourceURL, with lines and
//! columns counted in the eval'd string, which is what the inline map maps.
//! No URL serves such a module: its map is found in the bundle that holds its
//! string, among the scripts on the page's origin ([`inline_map`]). Pure.

use std::collections::HashMap;
use std::sync::Arc;

use rusqlite::Connection;

use super::cache::{Cost, Lru};
use super::fetch::Validators;
use crate::store::{StoreError, sql};

/// The schemes webpack gives its eval'd modules' sourceURLs: `webpack-internal:` with a map
/// (eval-source-map and the like), `webpack:` without one (the plain `eval` devtool).
pub const SCHEMES: [&str; 2] = ["webpack-internal", "webpack"];

/// Most scripts of a tab searched for an eval'd module (the newest first).
pub const MAX_CANDIDATES: usize = 16;

/// Whether a frame's URL names a module run through `eval` by webpack.
pub fn is_eval_module(url: &str) -> bool {
    SCHEMES.iter().any(|scheme| {
        url.get(..scheme.len()).is_some_and(|s| s.eq_ignore_ascii_case(scheme)) && url[scheme.len()..].starts_with(':')
    })
}

/// Whether a frame's URL names code a hot update ran whose map leads to no source file:
/// - Turbopack's runtime gives code it runs through `eval` the sourceURL of its chunk with `?id=`
///   and the module's id, which starts with its layer in brackets (`[project]/app/page.tsx
///   [app-client] (ecmascript)`), percent-encoded once or twice. The code's own inline map was in
///   the update's message only; no URL serves it (the chunk's URL, query ignored, serves the whole
///   chunk as rebuilt).
/// - Angular's dev server sends a component's new template as a module at `/@ng/component?c=…`,
///   whose map names a file that does not exist (`@ng/app.component.ts`) and holds the compiled
///   template, not the component's source.
pub fn is_hot_update(url: &url::Url) -> bool {
    matches!(url.scheme(), "http" | "https")
        && (url.path() == "/@ng/component"
            || url
                .query_pairs()
                .any(|(key, value)| key == "id" && ["[", "%5B", "%5b"].iter().any(|open| value.starts_with(open))))
}

/// Most eval'd modules indexed in one bundle (a large Next.js dev app has a few thousand).
pub const MAX_MODULES: usize = 50_000;

/// Where each eval'd module of a bundle names itself: its sourceURL and the byte offset of
/// that comment, for [`map_at`]. The first of a name counts; at most [`MAX_MODULES`].
pub fn index(bundle: &str) -> HashMap<String, usize> {
    let mut modules = HashMap::new();
    for (at, _) in bundle.match_indices(MARKER) {
        if modules.len() >= MAX_MODULES {
            break;
        }
        let name = &bundle[at + MARKER.len()..];
        let name = &name[..name.find(ends_a_name).unwrap_or(name.len())];
        if is_eval_module(name) {
            modules.entry(name.to_string()).or_insert(at);
        }
    }
    modules
}

/// The map reference (a `data:` URL) of the module whose sourceURL comment is at `at`: the
/// last `sourceMappingURL=` of the module's string, which runs back to the `eval(` that starts
/// it. None when the module's string names no map (webpack's plain `eval` devtool).
pub fn map_at(bundle: &str, at: usize) -> Option<&str> {
    let before = bundle.get(..at)?;
    let string = &before[before.rfind("eval(").unwrap_or(0)..];
    let value = &string[string.rfind(MAP_MARKER)? + MAP_MARKER.len()..];
    let end = value.find(ends_a_name).unwrap_or(value.len());
    Some(&value[..end]).filter(|v| !v.is_empty())
}

/// The code of the module whose sourceURL comment is at `at`, without its map and names: what
/// tells two builds' modules of one name apart (the same library in a host and a remote is the
/// same code, mapped alike).
pub fn code_at(bundle: &str, at: usize) -> Option<&str> {
    let before = bundle.get(..at)?;
    let string = &before[before.rfind("eval(").unwrap_or(0)..];
    Some(&string[..string.find(MAP_MARKER).unwrap_or(string.len())])
}

const MARKER: &str = "sourceURL=";
const MAP_MARKER: &str = "sourceMappingURL=";

/// What ends a name inside the bundle's string literal: an escape (`\n`), a quote, a space.
fn ends_a_name(c: char) -> bool {
    matches!(c, '\\' | '"' | '\'' | '`') || c.is_whitespace()
}

/// A bundle fetched from the page's origin, with its eval'd modules indexed.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub validators: Validators,
    pub text: Arc<str>,
    pub modules: Arc<HashMap<String, usize>>,
    /// The batch (the resolver's count of them) in which the server last confirmed it.
    pub checked_in: u64,
}

impl Bundle {
    pub fn new(validators: Validators, bytes: Vec<u8>, checked_in: u64) -> Bundle {
        let text: Arc<str> = match String::from_utf8(bytes) {
            Ok(text) => text.into(),
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into(),
        };
        Bundle { validators, modules: Arc::new(index(&text)), text, checked_in }
    }

    /// The code of the eval'd module `module_url` ([`code_at`]), if this bundle holds it.
    pub fn code_of(&self, module_url: &str) -> Option<&str> {
        self.modules.get(module_url).and_then(|&at| code_at(&self.text, at))
    }

    /// The map reference of the eval'd module `module_url`, if this bundle holds it with one.
    pub fn map_of(&self, module_url: &str) -> Option<&str> {
        self.modules.get(module_url).and_then(|&at| map_at(&self.text, at))
    }
}

/// Most bytes of bundles remembered; the least recently used go first.
pub const MAX_BUNDLE_BYTES: usize = 64 * 1024 * 1024;

/// Which eval'd modules a script held when last read, and in which batch: kept beyond the
/// script's text, so that a module is not looked for again in every script.
#[derive(Debug, Clone)]
pub struct Indexed {
    pub modules: Arc<HashMap<String, usize>>,
    pub job: u64,
    cost: usize,
}

impl Indexed {
    pub fn of(bundle: &Bundle, job: u64) -> Indexed {
        let cost = bundle.modules.keys().map(|name| name.len() + 64).sum();
        Indexed { modules: bundle.modules.clone(), job, cost }
    }
}

impl Cost for Indexed {
    fn cost(&self) -> usize {
        self.cost
    }
}

/// Most scripts whose modules are remembered, and most bytes their names may take.
pub const MAX_INDEXES: usize = 256;
pub const MAX_INDEX_BYTES: usize = 32 * 1024 * 1024;

/// What is remembered of the scripts read, keyed by URL.
pub type Indexes = Lru<Indexed>;

impl Default for Indexes {
    fn default() -> Indexes {
        Lru::new(MAX_INDEXES, MAX_INDEX_BYTES)
    }
}

/// The bundles remembered (those that hold eval'd modules), keyed by URL, bounded by
/// [`MAX_BUNDLE_BYTES`] of text.
pub type Bundles = Lru<Bundle>;

impl Default for Bundles {
    fn default() -> Bundles {
        Lru::new(usize::MAX, MAX_BUNDLE_BYTES)
    }
}

impl Cost for Bundle {
    fn cost(&self) -> usize {
        self.text.len()
    }
}

/// The scripts a tab loaded, the newest first, as its waterfall rows name them: those the
/// page or the browser called scripts, and any URL whose path ends in `.js`.
pub fn tab_scripts(conn: &Connection, tab_id: i64) -> Result<Vec<String>, StoreError> {
    sql::script_urls(conn, tab_id, MAX_CANDIDATES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hot_update_is_told_from_a_script() {
        let chunks = "http://localhost:3000/_next/static/chunks/_1avurmfd1l2ij._.js";
        let hot = |u: &str| is_hot_update(&url::Url::parse(u).expect("a URL"));
        assert!(hot(&format!("{chunks}?id=%255Bproject%255D/app/page.tsx+%255Bapp-client%255D")));
        assert!(hot(&format!("{chunks}?id=%5Bproject%5D%2Fapp%2Futil.ts")));
        assert!(hot(&format!("{chunks}?v=1&id=[project]/app/page.tsx")));
        // Angular's component update.
        assert!(hot(
            "http://localhost:4200/@ng/component?c=src%2Fapp%2Fdebugger.component.ts%40DebuggerComponent&t=1795769753154"
        ));
        for script in [
            "http://localhost:4200/main.js".to_string(),
            "http://localhost:4200/@ng/component.js".into(),
            chunks.to_string(),
            "http://localhost:5173/src/App.tsx?t=1732400000000".into(),
            "http://localhost:5173/node_modules/.vite/deps/react.js?v=3f2a".into(),
            format!("{chunks}?id=42"),
            "webpack-internal:///./src/App.js?id=[x]".into(),
        ] {
            assert!(!hot(&script), "{script}");
        }
    }

    /// Two modules as webpack 5's `eval-source-map` writes them into a bundle.
    const BUNDLE: &str = concat!(
        "/***/ \"./src/util.jsx\"\n(m) {\n",
        "eval(\"{function other() {}\\n//# sourceURL=[module]\\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,T1RIRVI=\\n//# sourceURL=webpack-internal:///./src/util.jsx\\n\\n}\");\n",
        "/***/ \"./src/util.js\"\n(m) {\n",
        "eval(\"{function explode() {}\\n//# sourceURL=[module]\\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,VVRJTA==\\n//# sourceURL=webpack-internal:///./src/util.js\\n\\n}\");\n",
        "/***/ \"./src/plain.js\"\n(m) {\n",
        "eval(\"{function plain() {}\\n//# sourceURL=webpack-internal:///./src/plain.js\\n}\");\n",
    );

    fn map_of<'a>(bundle: &'a str, module: &str) -> Option<&'a str> {
        index(bundle).get(module).and_then(|&at| map_at(bundle, at))
    }

    #[test]
    fn a_module_s_own_inline_map_is_found_in_its_bundle() {
        assert_eq!(
            map_of(BUNDLE, "webpack-internal:///./src/util.js"),
            Some("data:application/json;charset=utf-8;base64,VVRJTA==")
        );
        assert_eq!(
            map_of(BUNDLE, "webpack-internal:///./src/util.jsx"),
            Some("data:application/json;charset=utf-8;base64,T1RIRVI=")
        );
        assert_eq!(index(BUNDLE).len(), 3, "[module] is not a module's name");
    }

    #[test]
    fn a_module_without_a_map_or_not_in_the_bundle_has_none() {
        assert_eq!(map_of(BUNDLE, "webpack-internal:///./src/plain.js"), None, "the plain eval devtool");
        assert_eq!(map_of(BUNDLE, "webpack-internal:///./src/missing.js"), None);
        assert_eq!(map_of(BUNDLE, "webpack-internal:///./src/util"), None, "a prefix of a name is not the name");
        assert!(index("").is_empty());
        let crafted = "eval(\"//# sourceURL=webpack-internal:///m\");".repeat(MAX_MODULES + 10);
        assert!(index(&crafted).len() <= 1, "one name, however often");
        let many: String = (0..MAX_MODULES + 10).map(|i| format!("//# sourceURL=webpack-internal:///{i}\n")).collect();
        assert_eq!(index(&many).len(), MAX_MODULES);
        assert_eq!(map_at("short", 99), None);
    }

    #[test]
    fn bundles_are_kept_within_their_bytes() {
        let mut bundles = Bundles::default();
        let big = |n: usize| {
            let mut text = BUNDLE.to_string();
            text.push_str(&" ".repeat(n));
            Bundle::new(Validators::default(), text.into_bytes(), 1)
        };
        bundles.put("http://localhost/a.js", big(MAX_BUNDLE_BYTES / 2));
        bundles.put("http://localhost/b.js", big(MAX_BUNDLE_BYTES / 4));
        assert!(bundles.get("http://localhost/a.js").is_some(), "a used last");
        bundles.put("http://localhost/c.js", big(MAX_BUNDLE_BYTES / 3));
        assert!(bundles.get("http://localhost/b.js").is_none(), "the least recently used went");
        assert!(bundles.get("http://localhost/a.js").is_some());
        let got = bundles.get("http://localhost/c.js").expect("kept");
        assert_eq!(
            got.map_of("webpack-internal:///./src/util.js"),
            Some("data:application/json;charset=utf-8;base64,VVRJTA==")
        );
        bundles.put("http://localhost/huge.js", big(MAX_BUNDLE_BYTES));
        assert!(bundles.get("http://localhost/huge.js").is_none(), "larger than the budget: not kept");
        assert!(bundles.cost() <= MAX_BUNDLE_BYTES);
    }

    #[test]
    fn what_scripts_held_is_kept_within_its_bytes() {
        let names: String =
            (0..40_000).map(|i| format!("//# sourceURL=webpack-internal:///./src/{i:0>200}.js\n")).collect();
        let bundle = Bundle::new(Validators::default(), names.into_bytes(), 1);
        let one = Indexed::of(&bundle, 1);
        assert!(one.cost() > MAX_INDEX_BYTES / 8, "{} bytes of names", one.cost());
        let mut indexes = Indexes::default();
        for i in 0..16 {
            indexes.put(&format!("http://localhost/{i}.js"), Indexed::of(&bundle, 1));
        }
        assert!(indexes.cost() <= MAX_INDEX_BYTES, "{}", indexes.cost());
        assert!(indexes.get("http://localhost/15.js").is_some(), "the newest kept");
        assert!(indexes.get("http://localhost/0.js").is_none(), "the oldest gone");
    }

    #[test]
    fn eval_modules_are_named_by_their_scheme() {
        assert!(is_eval_module("webpack-internal:///./src/util.js"));
        assert!(is_eval_module("Webpack-Internal:///(app-pages-browser)/./src/app/page.js"));
        assert!(is_eval_module("webpack://app/./src/util.js?"), "the plain eval devtool's name");
        assert!(!is_eval_module("webpackx://app/./src/util.js"));
        assert!(!is_eval_module("http://localhost:8080/main.js"));
        assert!(!is_eval_module("webpack-internal"));
    }
}
