//! Captured text made safe to print on a person's terminal. A page decides
//! what its console lines, URLs and bodies hold, and a terminal obeys control
//! characters: an escape sequence in a captured message could clear the
//! screen, retitle the window, write the clipboard (OSC 52) or hide text, and
//! bidirectional overrides could make a line read other than it is, as can a
//! character with no width (`pay\u{200b}pal.com` looks like the real site).
//! Every such character is shown as its escape (`\u{1b}`), never sent as itself.

use std::borrow::Cow;

/// `text` with every control character (C0 but tab, DEL, C1), bidirectional control and
/// invisible character written as `\u{..}`; a tab becomes a space. A zero-width joiner or
/// non-joiner between two non-ASCII characters is left as it is: it is how an emoji sequence
/// (👩‍💻) or a word of Persian or Hindi is written, and no ASCII name can hide behind it.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let joins = |j: Option<&char>| j.is_some_and(|j| !j.is_ascii());
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).and_then(|p| chars.get(p));
        let joiner = matches!(c, '\u{200c}' | '\u{200d}') && joins(before) && joins(chars.get(i + 1));
        let flag = in_flag(c, before.copied());
        match c {
            '\t' => out.push(' '),
            c if escaped(c) && !joiner && !flag => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// JSON `text` (serde_json's, which escapes only C0 controls) with the other characters
/// `printable` escapes written as `\uXXXX` escapes: the same JSON, safe on a terminal. A raw
/// newline, return or tab in serde_json's text can only be whitespace between values (the lines
/// of JSONL, a HAR's layout): it stays.
pub fn json(text: &str) -> Cow<'_, str> {
    rewrite(text, |c, out| match c {
        '\n' | '\r' | '\t' => out.push(c),
        // JSON escapes UTF-16 units: a character past the BMP (a tag) as its surrogate pair.
        c => {
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    })
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

/// A writer of JSON text that writes it as [`json`] does: the same JSON, with no character a
/// terminal obeys (an export sent to stdout, or a file shown with `cat`). Text may come in any
/// pieces: a character cut between two writes waits for its end.
pub struct JsonWriter<W: std::io::Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: std::io::Write> JsonWriter<W> {
    pub fn new(inner: W) -> Self {
        JsonWriter { inner, pending: Vec::new() }
    }
}

impl<W: std::io::Write> std::io::Write for JsonWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let whole = match std::str::from_utf8(&self.pending) {
            Ok(text) => text.len(),
            // A character cut at the end waits; bytes that are not UTF-8 at all go as they are.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => {
                self.inner.write_all(&self.pending)?;
                self.pending.clear();
                return Ok(buf.len());
            }
        };
        let text = std::str::from_utf8(&self.pending[..whole]).unwrap_or_default();
        self.inner.write_all(json(text).as_bytes())?;
        self.pending.drain(..whole);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            self.inner.write_all(&self.pending)?;
            self.pending.clear();
        }
        self.inner.flush()
    }
}

fn escaped(c: char) -> bool {
    c.is_control() || is_bidi(c) || is_invisible(c)
}

/// A bidirectional control: an embedding, override or isolate, or a direction mark.
pub fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// A character with no width and no mark of its own (Unicode's default-ignorable characters
/// but the variation selectors an emoji or an ideograph takes), or one that breaks a line
/// without being a newline: the soft hyphen, the combining grapheme joiner, the Hangul, Khmer
/// and Mongolian fillers and selectors, zero-width space, non-joiner and joiner, the line and
/// paragraph separators, word joiner, the invisible operators and deprecated format characters,
/// the BOM, musical formatting and the tag characters. The viewer marks the same ones, but the
/// separators, which it shows as the breaks they are.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{34f}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}' | '\u{180b}'..='\u{180f}'
        | '\u{200b}'..='\u{200d}' | '\u{2028}' | '\u{2029}' | '\u{2060}'..='\u{2065}' | '\u{206a}'..='\u{206f}'
        | '\u{3164}' | '\u{feff}' | '\u{ffa0}' | '\u{fff0}'..='\u{fff8}' | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e007f}' | '\u{e01f0}'..='\u{e0fff}')
}

/// A tag character inside a flag's sequence (🏴 and the tags naming England, Scotland, Wales...):
/// how such a flag is written, after the black flag or another tag.
fn in_flag(c: char, before: Option<char>) -> bool {
    ('\u{e0020}'..='\u{e007f}').contains(&c)
        && before.is_some_and(|b| b == '\u{1f3f4}' || ('\u{e0020}'..='\u{e007f}').contains(&b))
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
    fn the_json_writer_escapes_across_any_cut() {
        let value = serde_json::json!({"m": "a\u{9b}2J\u{202e}b é"});
        let text = value.to_string();
        for cut in 0..=text.len() {
            let mut out = JsonWriter::new(Vec::new());
            std::io::Write::write_all(&mut out, &text.as_bytes()[..cut]).unwrap();
            std::io::Write::write_all(&mut out, &text.as_bytes()[cut..]).unwrap();
            std::io::Write::flush(&mut out).unwrap();
            let shown = String::from_utf8(out.inner).unwrap();
            assert_eq!(shown, json(&text), "cut at {cut}");
        }
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
    fn invisible_characters_are_shown_but_emoji_and_scripts_keep_their_joiners() {
        assert_eq!(printable("pay\u{200b}pal.com\u{feff}"), "pay\\u{200b}pal.com\\u{feff}");
        assert_eq!(printable("a\u{200d}b \u{2060}\u{61c}"), "a\\u{200d}b \\u{2060}\\u{61c}");
        let kept = "dev 👩\u{200d}💻 می\u{200c}خواهم";
        assert_eq!(printable(kept), kept);
        assert_eq!(printable("\u{200d}👩\u{200d}"), "\\u{200d}👩\\u{200d}", "a joiner at an end joins nothing");
        let value = serde_json::json!({"m": "pay\u{200b}pal 👩\u{200d}💻"});
        let text = value.to_string();
        let shown = json(&text);
        assert!(!shown.chars().any(is_invisible), "{shown:?}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&shown).unwrap(), value);
    }

    #[test]
    fn characters_that_read_as_nothing_are_shown() {
        for c in [
            '\u{ad}',
            '\u{34f}',
            '\u{1160}',
            '\u{17b4}',
            '\u{180e}',
            '\u{2028}',
            '\u{2065}',
            '\u{206a}',
            '\u{3164}',
            '\u{ffa0}',
            '\u{e0020}',
        ] {
            let name = format!("pay{c}pal.com");
            assert_eq!(printable(&name), format!("pay\\u{{{:x}}}pal.com", c as u32));
            let value = serde_json::json!({ "m": name });
            let shown = json(&value.to_string()).into_owned();
            assert!(!shown.chars().any(is_invisible), "{shown:?}");
            assert_eq!(serde_json::from_str::<serde_json::Value>(&shown).unwrap(), value, "{shown}");
        }
        // A flag written with tags keeps them; emoji keep their variation selector.
        let england = "🏴\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f} ❤\u{fe0f}";
        assert_eq!(printable(england), england);
    }

    #[test]
    fn ordinary_text_is_untouched() {
        assert!(matches!(printable("GET /api/items → 200 ✓ 日本"), Cow::Borrowed(_)));
        assert_eq!(printable("a\tb"), "a b");
    }
}
