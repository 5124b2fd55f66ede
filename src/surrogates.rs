//! JSON text from a browser may name a lone UTF-16 surrogate in a `\u` escape:
//! `JSON.stringify` writes one as `\ud83d` when a page's string holds half an
//! emoji (a page may log one; a string cut at a length can split one). Such
//! text is valid JSON, but it is no Unicode string, and serde_json refuses the
//! whole body for it. [`mend`] replaces each lone surrogate's escape with
//! `\ufffd` (the replacement character, as a browser's own decoders do), so one
//! half character costs one character, not a batch.

use std::borrow::Cow;

/// `text` itself, or its mended copy when it holds a lone surrogate escape ([`mend`]).
pub fn mended<T: AsRef<[u8]> + From<Vec<u8>>>(text: T) -> T {
    match mend(text.as_ref()) {
        Cow::Borrowed(_) => text,
        Cow::Owned(mended) => T::from(mended),
    }
}

/// `body` with every `\u` escape of a lone surrogate written `\ufffd`; borrowed when there is none.
pub fn mend(body: &[u8]) -> Cow<'_, [u8]> {
    let lone: Vec<usize> = memchr::memmem::find_iter(body, b"\\u")
        .filter(|&at| match unit_at(body, at) {
            // A high surrogate is whole with a low one right after it; a low one with a high one right before.
            Some(0xD800..=0xDBFF) => !matches!(unit_at(body, at + 6), Some(0xDC00..=0xDFFF)),
            Some(0xDC00..=0xDFFF) => !(at >= 6 && matches!(unit_at(body, at - 6), Some(0xD800..=0xDBFF))),
            _ => false,
        })
        .collect();
    if lone.is_empty() {
        return Cow::Borrowed(body);
    }
    let mut out = body.to_vec();
    for at in lone {
        out[at + 2..at + 6].copy_from_slice(b"fffd");
    }
    Cow::Owned(out)
}

/// The UTF-16 unit of the `\uXXXX` escape at `at`, if one is there (a backslash that is not
/// itself escaped: `\\u…` is a backslash, then the letter u).
fn unit_at(body: &[u8], at: usize) -> Option<u16> {
    if !body.get(at..)?.starts_with(b"\\u") || escaped_backslash(body, at) {
        return None;
    }
    hex4(body, at + 2)
}

/// Whether the backslash at `at` is itself escaped (an odd number of backslashes before it).
fn escaped_backslash(body: &[u8], at: usize) -> bool {
    body[..at].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

fn hex4(body: &[u8], from: usize) -> Option<u16> {
    let digits = body.get(from..from + 4)?;
    u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mended(text: &str) -> String {
        String::from_utf8(mend(text.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character_and_pairs_stay() {
        assert_eq!(mended(r#"{"m":"cut \ud83d"}"#), r#"{"m":"cut \ufffd"}"#);
        assert_eq!(mended(r#"{"m":"\ude00 low"}"#), r#"{"m":"\ufffd low"}"#);
        assert_eq!(mended(r#"{"m":"\ud83d\ude00 pair"}"#), r#"{"m":"\ud83d\ude00 pair"}"#);
        assert_eq!(mended(r#"{"m":"\ud83d\ud83d\ude00"}"#), r#"{"m":"\ufffd\ud83d\ude00"}"#);
        assert_eq!(mended(r#"{"m":"\ud83d\u0041"}"#), r#"{"m":"\ufffd\u0041"}"#);
        assert_eq!(
            mended(r#"["\ud83d","\ude00"]"#),
            r#"["\ufffd","\ufffd"]"#,
            "a pair split across strings is two halves"
        );
        let parsed: serde_json::Value = serde_json::from_slice(&mend(br#"{"m":"a \ud83d b"}"#)).unwrap();
        assert_eq!(parsed["m"], "a \u{fffd} b");
    }

    #[test]
    fn text_that_only_looks_like_an_escape_is_left_alone() {
        for text in [r#"{"m":"\\ud83d"}"#, r#"{"m":"no escapes 😀"}"#, r#"{"m":"\u00e9\u20ac"}"#, r#"{"m":"\u12"}"#] {
            assert!(matches!(mend(text.as_bytes()), Cow::Borrowed(_)), "{text}");
        }
        assert_eq!(mended(r#"{"m":"\\\ud83d"}"#), r#"{"m":"\\\ufffd"}"#, "an escaped backslash, then a real escape");
    }
}
