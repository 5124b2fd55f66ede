//! A Vite dev server's `base` (`/static/` under django-vite, `/vite-dev/` under vite_ruby) taken
//! off the paths it names a module's sources by. Vite serves `src/cart.ts` at
//! `<origin>/static/src/cart.ts`, and its map names the source relative to that URL, so the
//! source reads `static/src/cart.ts`: a folder of the backend's project, not of the app's. Whether
//! the first folder of a source is a base is asked of the dev server itself: it serves its client
//! there (`<origin><base>@vite/client`). Pure; the worker fetches.

use url::Url;

/// What Vite's client module exports, which no other file served there holds.
const CLIENT_MARK: &[u8] = b"createHotContext";

/// The first folder of a source named by a path of its dev server (`static` of
/// `static/src/cart.ts`): a base it may be served under. None for an absolute path, a URL or a
/// file at the root.
pub fn first_folder(source: &str) -> Option<&str> {
    if source.starts_with('/') || source.contains("://") {
        return None;
    }
    source.split_once('/').map(|(first, _)| first).filter(|f| !f.is_empty() && *f != "." && *f != "..")
}

/// Where the dev server that served `script` would serve Vite's client under `base`.
pub fn client_url(script: &Url, base: &str) -> Option<Url> {
    script.join(&format!("/{base}/@vite/client")).ok()
}

/// Whether `body` is Vite's client module.
pub fn is_client(body: &[u8]) -> bool {
    body.windows(CLIENT_MARK.len()).any(|w| w == CLIENT_MARK)
}

/// `source` without its first folder `base`.
pub fn without(source: &str, base: &str) -> String {
    source.strip_prefix(base).and_then(|rest| rest.strip_prefix('/')).unwrap_or(source).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_is_asked_of_the_server_where_it_would_serve_its_client() {
        assert_eq!(first_folder("static/src/cart.ts"), Some("static"));
        assert_eq!(first_folder("vite-dev/entrypoints/application.js"), Some("vite-dev"));
        for none in ["/home/me/app/src/cart.ts", "webpack://app/src/x.js", "App.jsx", "../x.js"] {
            assert_eq!(first_folder(none), None, "{none}");
        }
        let script = Url::parse("http://localhost:5173/static/src/cart.ts?t=1").expect("a URL");
        assert_eq!(
            client_url(&script, "static").map(String::from).as_deref(),
            Some("http://localhost:5173/static/@vite/client")
        );
        assert!(is_client(b"export { createHotContext, injectQuery };"));
        assert!(!is_client(b"<!doctype html><script type=\"module\" src=\"/@vite/client\"></script>"));
        assert_eq!(without("static/src/cart.ts", "static"), "src/cart.ts");
        assert_eq!(without("staticky/x.ts", "static"), "staticky/x.ts");
    }
}
