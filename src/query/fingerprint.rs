//! Fingerprints of messages, so that repeats of one message with other
//! numbers or ids count as one group ("event 12 of 3000" and "event 13
//! of 3000" are `event <n> of <n>`), as Sentry groups errors. A URL keeps its
//! shape (`http://localhost:5173/api/orders/<n>`): two endpoints that fail are
//! two problems, one endpoint failing for many ids is one.

use std::sync::LazyLock;

use regex::Regex;

/// Characters of a message that take part in its fingerprint.
pub const PREFIX: usize = 300;
/// Where Svelte's dev build begins the component stack it appends to an error's message.
const SVELTE_COMPONENT_STACK: &str = "\n\n\tin ";

/// Messages that follow an error already logged, naming each module it reached: no new problem
/// per module. Vite's client logs "[vite] Failed to reload /src/App.tsx. This could be due to
/// syntax errors or importing non-existent modules. (see errors above)" for every module a broken
/// save's hot update climbed through; the module's name (between the two parts) is variable.
const FOLLOW_UPS: &[(&str, &str)] = &[("Failed to reload ", ". This could be due to ")];

static VARIABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?P<url>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\x22<>()\[\]{}]+)",
        r"|(?P<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)",
        r"|\b(?P<measure>\d+(?:\.\d+)?)(?P<unit>ms|µs|us|ns|s|px|rem|em|vh|vw|fps|[kKMG]i?B|kb|mb|B|x|h|m|d)\b",
        r"|(?P<hex>\b0x[0-9a-fA-F]+\b|\b[0-9a-fA-F]*[0-9][0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*\b|\b[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*[0-9][0-9a-fA-F]*\b)",
        r"|(?P<id>\b[A-Za-z0-9_-]*[0-9][A-Za-z0-9_-]*[A-Za-z][A-Za-z0-9_-]*\b)",
        r"|(?P<n>-?\d+(?:\.\d+)?)",
    ))
    .unwrap_or_else(|e| panic!("fingerprint pattern: {e}"))
});

/// The message with its variable parts replaced by `<uuid>`, `<hex>`, `<id>` and `<n>` (a
/// measure keeps its unit: `<n>ms`), and each URL by its [`url_pattern`].
pub fn of(message: &str) -> String {
    // Svelte's dev build appends the component stack an error happened under ("\n\n\tin
    // $effect\n\tin +page.svelte…"): the same error reached through another component is the
    // same problem.
    let message = message.split_once(SVELTE_COMPONENT_STACK).map_or(message, |(error, _)| error);
    let followed = follow_up(message);
    let message = followed.as_deref().unwrap_or(message);
    let head = match message.char_indices().nth(PREFIX) {
        Some((at, _)) => &message[..at],
        None => message,
    };
    let collapsed = collapse_logged(head);
    let head = collapsed.as_str();
    VARIABLE
        .replace_all(head, |caps: &regex::Captures<'_>| {
            // A measure keeps its unit: "done in 302ms" is `done in <n>ms`, not an id.
            if let Some(unit) = caps.name("unit") {
                return format!("<n>{}", unit.as_str());
            }
            if let Some(url) = caps.name("url") {
                return url_pattern(url.as_str());
            }
            let name = ["uuid", "hex", "id", "n"].into_iter().find(|n| caps.name(n).is_some()).unwrap_or("n");
            // A hyphen right after a word is the word's, not a minus: `A-1` is `A-<n>`.
            let joined = caps.name("n").is_some_and(|n| {
                n.as_str().starts_with('-') && head[..n.start()].chars().next_back().is_some_and(char::is_alphanumeric)
            });
            if joined { format!("-<{name}>") } else { format!("<{name}>") }
        })
        .into_owned()
}

/// The message with each object or list a console call logged (as the extension writes them: JSON,
/// `{"route":{…}}`, `["a","b"]`) as `{…}` or `[…]`: the same line logged with other data is one
/// group (Vue's warning of one handler under two routes, whose objects differ in one field). An
/// object cut short by [`PREFIX`] runs to the end.
fn collapse_logged(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let opens_json = match c {
            b'{' => bytes.get(i + 1) == Some(&b'"') || bytes.get(i + 1) == Some(&b'}'),
            b'[' => matches!(bytes.get(i + 1), Some(b'"' | b'{' | b'[' | b']' | b'0'..=b'9' | b'-')),
            _ => false,
        };
        if !opens_json {
            let ch = text[i..].chars().next().unwrap_or_default();
            out.push(ch);
            i += ch.len_utf8().max(1);
            continue;
        }
        let end = i + super::literal::raw_extent(&text[i..]);
        out.push_str(if c == b'{' { "{…}" } else { "[…]" });
        i = end;
    }
    out
}

/// The message with the module a [`FOLLOW_UPS`] message names as `<module>`, when it is one.
fn follow_up(message: &str) -> Option<String> {
    FOLLOW_UPS.iter().find_map(|(before, after)| {
        let start = message.find(before)? + before.len();
        let end = start + message[start..].find(after)?;
        Some(format!("{}<module>{}", &message[..start], &message[end..]))
    })
}

/// A URL as a pattern: without query and fragment, its origin as it is, variable path segments
/// (numbers, ids, hashes, UUIDs) as `<n>`, `<id>`, `<hex>`, `<uuid>`.
pub fn url_pattern(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let url = &url[..end];
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (format!("{s}://"), r),
        None => (String::new(), url),
    };
    let mut parts = rest.split('/');
    let host = parts.next().unwrap_or_default();
    let path: Vec<String> = parts.map(of).collect();
    if path.is_empty() { format!("{scheme}{host}") } else { format!("{scheme}{host}/{}", path.join("/")) }
}

#[cfg(test)]
mod tests {
    use super::{of, url_pattern};

    #[test]
    fn a_line_logged_with_other_objects_is_one_group() {
        let warn = |state: &str| {
            format!(
                "[Vue warn]: Unhandled error during execution of native event handler \n  at <RouteProvider key=\"/items/7()\" vnode= [VNode [id]] route= {{\"fullPath\":\"/items/7\",\"instances\":{{\"default\":{state}}}}} > "
            )
        };
        assert_eq!(of(&warn("{}")), of(&warn("null")));
        assert_eq!(
            of(&warn("{}")),
            "[Vue warn]: Unhandled error during execution of native event handler \n  at <RouteProvider key=\"/items/<n>()\" vnode= [VNode [id]] route= {…} > "
        );
        assert_eq!(of(r#"event {"i":1,"user":{"id":7,"name":"a]}"},"tags":["a","b"]} ["x",2]"#), "event {…} […]");
        // Not JSON: as before, its numbers variable, its words kept.
        assert_eq!(of("expected {a: 1} at [vite] [1, 2]"), "expected {a: <n>} at [vite] […]");
        // Cut short by the prefix: to the end.
        assert_eq!(of(r#"state {"a":"#), "state {…}");
    }

    #[test]
    fn an_error_reached_through_other_svelte_components_is_one_group() {
        let message = "Uncaught TypeError: Cannot read properties of undefined (reading 'max')";
        assert_eq!(of(&format!("{message}\n\n\tin $effect\n\tin +page.svelte\n\tin root.svelte\n")), of(message));
        assert_eq!(of(&format!("{message}\n\n\tin Cart.svelte\n\tin +layout.svelte\n")), of(message));
    }

    #[test]
    fn vite_s_failed_reloads_after_one_broken_save_are_one_group() {
        let reload = |module: &str| {
            format!(
                "[vite] Failed to reload {module}. This could be due to syntax errors or importing non-existent modules. (see errors above)"
            )
        };
        assert_eq!(of(&reload("/src/components/Noisy.tsx")), of(&reload("/src/App.tsx")));
        assert_eq!(
            of(&reload("/src/App.tsx")),
            "[vite] Failed to reload <module>. This could be due to syntax errors or importing non-existent modules. (see errors above)"
        );
        assert_ne!(of("Failed to reload the page"), of("Failed to reload the app"), "not Vite's follow-up");
    }

    #[test]
    fn a_hyphen_in_a_word_is_kept_and_a_minus_is_a_number() {
        assert_eq!(of("sku A-1 out of stock"), "sku A-<n> out of stock");
        assert_eq!(of("offset -12 from 3"), "offset <n> from <n>");
    }

    #[test]
    fn numbers_ids_and_urls_are_variable() {
        assert_eq!(of("event 12 of 3000"), of("event 13 of 3000"));
        assert_eq!(of("event 12 of 3000"), "event <n> of <n>");
        assert_eq!(
            of("GET https://api.example.com/users/42?x=1 failed for 3f2a9c4e-1b2c-4d5e-8f90-123456789abc"),
            "GET https://api.example.com/users/<n> failed for <uuid>"
        );
        assert_eq!(
            of("Failed to load script: http://localhost:5173/src/a.ts?t=171 answered 500"),
            of("Failed to load script: http://localhost:5173/src/a.ts?t=172 answered 500"),
        );
        assert_ne!(
            of("Failed to load script: http://localhost:5173/src/a.ts answered 500"),
            of("Failed to load script: http://localhost:5173/src/b.ts answered 500"),
            "two files that fail are two problems"
        );
        assert_eq!(of("object at 0x7ffe12 and hash deadbeef42"), "object at <hex> and hash <hex>");
        assert_eq!(of("user usr_9kQ2mZ logged in"), "user <id> logged in");
        assert_ne!(of("TypeError: x is undefined"), of("TypeError: y is undefined"));
        assert_eq!(of("[Fast Refresh] done in 302ms"), "[Fast Refresh] done in <n>ms");
        assert_eq!(of("took 1.5s for 20px, 3MB, 2KiB at 60fps"), "took <n>s for <n>px, <n>MB, <n>KiB at <n>fps");
        assert_eq!(of("build a1b2c3d4 and order ord42x9"), "build <hex> and order <id>");
    }

    #[test]
    fn a_url_keeps_its_origin_and_the_shape_of_its_path() {
        assert_eq!(url_pattern("http://localhost:5173/api/orders/4711?x=1#f"), "http://localhost:5173/api/orders/<n>");
        assert_eq!(url_pattern("http://a/users/usr_9kQ2mZ/avatar.png"), "http://a/users/<id>/avatar.png");
        assert_eq!(url_pattern("http://a"), "http://a");
        assert_eq!(url_pattern("/rel/42"), "/rel/<n>");
    }
}
