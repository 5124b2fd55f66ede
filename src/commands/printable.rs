//! Captured text made safe to print on a person's terminal. A page decides
//! what its console lines, URLs and bodies hold, and a terminal obeys control
//! characters: an escape sequence in a captured message could clear the
//! screen, retitle the window, write the clipboard (OSC 52) or hide text, and
//! bidirectional overrides could make a line read other than it is. Every such
//! character is shown as its escape (`\u{1b}`), never sent as itself.

use std::borrow::Cow;

/// `text` with every control character (C0 but tab, DEL, C1) and bidirectional
/// control written as `\u{..}`; a tab becomes a space.
pub fn printable(text: &str) -> Cow<'_, str> {
    rewrite(text, |c, out| match c {
        '\t' => out.push(' '),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    })
}

/// JSON `text` (serde_json's, which escapes only C0 controls) with the other characters
/// `printable` escapes written as `\uXXXX` escapes: the same JSON value, safe on a terminal.
/// (A tab in serde_json's text is already `\t`.)
pub fn json(text: &str) -> Cow<'_, str> {
    rewrite(text, |c, out| out.push_str(&format!("\\u{:04x}", c as u32))) // all of them are in the BMP
}

/// `text` with each character `escaped` (a tab among them) written by `write`; borrowed when there is none.
fn rewrite(text: &str, write: impl Fn(char, &mut String)) -> Cow<'_, str> {
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c) { write(c, &mut out) } else { out.push(c) }
    }
    Cow::Owned(out)
}

fn escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_in_captured_text_are_shown_not_obeyed() {
        let hostile = "before\u{1b}]52;c;cGF3bmVk\u{7}\u{1b}[2J\u{9b}31m\u{202e}txt.exe\u{7f}after";
        let shown = printable(hostile);
        assert!(!shown.chars().any(|c| c.is_control()), "{shown:?}");
        assert_eq!(shown, "before\\u{1b}]52;c;cGF3bmVk\\u{7}\\u{1b}[2J\\u{9b}31m\\u{202e}txt.exe\\u{7f}after");
    }

    #[test]
    fn json_keeps_its_value_and_loses_its_terminal_controls() {
        let value = serde_json::json!({"m": "a\u{9b}31m\u{202e}b\u{7f}\u{1b}"});
        let text = value.to_string();
        let shown = json(&text);
        assert!(!shown.chars().any(|c| c.is_control() || c == '\u{202e}'), "{shown:?}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&shown).unwrap(), value);
    }

    #[test]
    fn ordinary_text_is_untouched() {
        assert!(matches!(printable("GET /api/items → 200 ✓ 日本"), Cow::Borrowed(_)));
        assert_eq!(printable("a\tb"), "a b");
    }
}
