//! Fingerprints of messages, so that repeats of one message with other
//! numbers, ids or URLs count as one group ("event 12 of 3000" and "event 13
//! of 3000" are `event <n> of <n>`), as Sentry groups errors.

use std::sync::LazyLock;

use regex::Regex;

/// Characters of a message that take part in its fingerprint.
pub const PREFIX: usize = 300;

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

/// The message with its variable parts replaced by `<url>`, `<uuid>`, `<hex>`, `<id>` and `<n>`
/// (a measure keeps its unit: `<n>ms`).
pub fn of(message: &str) -> String {
    let head = match message.char_indices().nth(PREFIX) {
        Some((at, _)) => &message[..at],
        None => message,
    };
    VARIABLE
        .replace_all(head, |caps: &regex::Captures<'_>| {
            // A measure keeps its unit: "done in 302ms" is `done in <n>ms`, not an id.
            if let Some(unit) = caps.name("unit") {
                return format!("<n>{}", unit.as_str());
            }
            let name = ["url", "uuid", "hex", "id", "n"].into_iter().find(|n| caps.name(n).is_some()).unwrap_or("n");
            format!("<{name}>")
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::of;

    #[test]
    fn numbers_ids_and_urls_are_variable() {
        assert_eq!(of("event 12 of 3000"), of("event 13 of 3000"));
        assert_eq!(of("event 12 of 3000"), "event <n> of <n>");
        assert_eq!(
            of("GET https://api.example.com/users/42?x=1 failed for 3f2a9c4e-1b2c-4d5e-8f90-123456789abc"),
            "GET <url> failed for <uuid>"
        );
        assert_eq!(of("object at 0x7ffe12 and hash deadbeef42"), "object at <hex> and hash <hex>");
        assert_eq!(of("user usr_9kQ2mZ logged in"), "user <id> logged in");
        assert_ne!(of("TypeError: x is undefined"), of("TypeError: y is undefined"));
        assert_eq!(of("[Fast Refresh] done in 302ms"), "[Fast Refresh] done in <n>ms");
        assert_eq!(of("took 1.5s for 20px, 3MB, 2KiB at 60fps"), "took <n>s for <n>px, <n>MB, <n>KiB at <n>fps");
        assert_eq!(of("build a1b2c3d4 and order ord42x9"), "build <hex> and order <id>");
    }
}
