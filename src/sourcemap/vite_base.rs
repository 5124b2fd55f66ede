//! A Vite dev server's `base` (`/static/` under django-vite, `/vite-dev/` under vite_ruby) taken
//! off the paths it names a module's sources by. Vite serves `src/cart.ts` at
//! `<origin>/static/src/cart.ts`, and its map names the source relative to that URL, so the
//! source reads `static/src/cart.ts`: a folder of the backend's project, not of the app's. The
//! base is where the page loaded Vite's client from (`<origin><base>@vite/client`). Pure.

use url::Url;

/// Where Vite serves its client, after its base.
const CLIENT: &str = "@vite/client";

/// `source` without the base of the Vite dev server that served `script`, when one of the tab's
/// Vite `clients` is on the script's origin and the source begins with its base.
pub fn without_base(source: &str, script: &Url, clients: &[Url]) -> String {
    let base = clients.iter().filter(|c| c.origin() == script.origin()).find_map(|c| c.path().strip_suffix(CLIENT));
    match base.map(|b| b.trim_start_matches('/')).filter(|b| !b.is_empty()) {
        Some(base) if source.starts_with(base) && source.len() > base.len() => source[base.len()..].to_string(),
        _ => source.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(u: &str) -> Url {
        Url::parse(u).expect("a URL")
    }

    #[test]
    fn the_base_vite_serves_under_is_taken_off() {
        let script = url("http://localhost:5173/static/src/cart.ts?t=1");
        let clients = [url("http://localhost:5173/static/@vite/client")];
        assert_eq!(without_base("static/src/cart.ts", &script, &clients), "src/cart.ts");
        assert_eq!(
            without_base("static/node_modules/.vite/deps/htmx.js", &script, &clients),
            "node_modules/.vite/deps/htmx.js"
        );
        // Rails' vite_ruby.
        let rails = [url("http://localhost:3036/vite-dev/@vite/client")];
        let entry = url("http://localhost:3036/vite-dev/entrypoints/application.js");
        assert_eq!(without_base("vite-dev/entrypoints/application.js", &entry, &rails), "entrypoints/application.js");
    }

    #[test]
    fn a_source_elsewhere_is_left_as_it_is() {
        let script = url("http://localhost:5173/static/src/cart.ts");
        let static_client = [url("http://localhost:5173/static/@vite/client")];
        // No base (Vite's default), another origin's client, a path outside the base, an absolute path.
        assert_eq!(without_base("src/App.jsx", &script, &[url("http://localhost:5173/@vite/client")]), "src/App.jsx");
        assert_eq!(
            without_base("static/src/cart.ts", &script, &[url("http://localhost:5174/static/@vite/client")]),
            "static/src/cart.ts"
        );
        assert_eq!(without_base("src/cart.ts", &script, &static_client), "src/cart.ts");
        assert_eq!(without_base("/home/me/app/src/cart.ts", &script, &static_client), "/home/me/app/src/cart.ts");
        assert_eq!(without_base("static/src/cart.ts", &script, &[]), "static/src/cart.ts");
    }
}
