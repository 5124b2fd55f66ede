//! A conservative estimate of how many tokens a client's tokenizer makes of
//! an answer's JSON text, cheap enough to run on every entry.
//!
//! Clients limit tool results in tokens (Claude Code refuses one over 25,000),
//! and our JSON runs at about 2.7 characters per token, so characters are not
//! a safe unit. The estimate follows how byte-level BPE tokenizers such as
//! cl100k split text before merging (letter runs with one leading character,
//! digits in groups of three, punctuation runs, white space) and charges each
//! piece what random text of that shape costs, so that it stays above the real
//! count for base64, hex, minified JS and non-ASCII text as well as for prose.
//! `tests/answers.rs` checks it against cl100k on realistic captures.
//!
//! No letter or mark is charged more than a token, the most a byte-level
//! tokenizer spends on a byte, so that text of any shape is estimated at about
//! a token a byte at the most (a lone digit in a word, which stands for the
//! finer splitting around it, at a token and a half).
//!
//! Costs are kept in quarter tokens and the estimate is subadditive: the
//! estimate of a concatenation is at most the sum of its parts' estimates
//! plus one per join, which is what lets entries be budgeted one by one.

/// Letters of one lowercase stretch that one token is charged for.
const LETTERS_PER_TOKEN: usize = 5;
/// Quarter tokens added for each consonant that ends a run of three or more
/// (random letters split into many short tokens; words rarely do this).
const CONSONANT_RUN: usize = 4;
/// Quarter tokens added to a digit run that touches letters (hex, base64).
const DIGITS_IN_WORD: usize = 2;
/// Quarter tokens for each punctuation character after a run's first.
const PUNCTUATION: usize = 4;
/// White-space characters one token is charged for.
const SPACES_PER_TOKEN: usize = 3;
/// Quarter tokens for a two-byte letter of a common alphabet within a short run (a word).
const TWO_BYTE_IN_WORD: usize = 4;
/// Quarter tokens for any other two-byte character, and for any within a long run: one
/// token a byte, the most a byte-level tokenizer spends.
const TWO_BYTE: usize = 8;
/// Longest run of two-byte characters taken for a word.
const WORD: usize = 12;
/// Quarter tokens for a three- and a four-byte character: one token a byte, the most
/// (rare CJK and supplementary-plane characters cost that, one next to a letter too).
const THREE_BYTE: usize = 12;
const FOUR_BYTE: usize = 16;

/// Whether a two-byte character with this first byte is a letter of an alphabet the
/// tokenizers learned words of: Latin-1 letters (é, ü, ñ), Greek, Cyrillic, Hebrew,
/// Arabic. Others (Latin Extended, IPA, combining marks as in "zalgo" text, symbols)
/// are charged a token a byte even within a word.
fn common_letter(lead: u8) -> bool {
    matches!(lead, 0xc3 | 0xce | 0xcf | 0xd0 | 0xd1 | 0xd7 | 0xd8 | 0xd9)
}
/// Safety margin over the piece costs, in percent, for tokenizers that split
/// a little finer than cl100k.
const MARGIN_PERCENT: usize = 5;

/// Estimated tokens of `text`: at least the cl100k count on realistic text.
pub fn estimate(text: &str) -> usize {
    let quarters = quarters(text.as_bytes());
    (quarters * (100 + MARGIN_PERCENT)).div_ceil(400)
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

fn is_punct(c: u8) -> bool {
    c < 0x80 && !c.is_ascii_alphanumeric() && !is_space(c)
}

fn quarters(b: &[u8]) -> usize {
    let n = b.len();
    let mut q = 0usize;
    let mut i = 0;
    while i < n {
        let c = b[i];
        let (cost, next) = if c >= 0x80 {
            non_ascii_run(b, i)
        } else if c.is_ascii_alphabetic() || (is_punct(c) && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic)) {
            // A letter run takes one leading character with it (`"message`, `.render`).
            letter_run(b, if c.is_ascii_alphabetic() { i } else { i + 1 })
        } else if c.is_ascii_digit() {
            let mut j = i;
            while j < n && b[j].is_ascii_digit() {
                j += 1;
            }
            let touches_letters =
                (i > 0 && b[i - 1].is_ascii_alphabetic()) || b.get(j).is_some_and(u8::is_ascii_alphabetic);
            (4 * (j - i).div_ceil(3) + if touches_letters { DIGITS_IN_WORD } else { 0 }, j)
        } else if c == b' ' && b.get(i + 1).copied().is_some_and(is_punct) {
            // A single space joins the punctuation after it.
            (0, i + 1)
        } else if is_space(c) {
            let mut j = i;
            while j < n && is_space(b[j]) {
                j += 1;
            }
            (4 * (j - i).div_ceil(SPACES_PER_TOKEN), j)
        } else {
            let mut j = i;
            while j < n && is_punct(b[j]) {
                j += 1;
            }
            // The last mark before a letter leads the letter run instead.
            if j - i > 1 && b.get(j).is_some_and(u8::is_ascii_alphabetic) {
                j -= 1;
            }
            (4 + PUNCTUATION * (j - i - 1), j)
        };
        q += cost;
        i = next.max(i + 1);
    }
    q
}

/// ASCII letters from `start`: each stretch that begins at an uppercase letter
/// (camelCase, random mixed case) is charged a token for every [`LETTERS_PER_TOKEN`]
/// letters, plus runs of consonants; no letter more than a token. Returns the cost and the end.
fn letter_run(b: &[u8], start: usize) -> (usize, usize) {
    let mut j = start;
    let mut stretch = 0usize;
    let mut consonants = 0usize;
    let mut cost = 0usize;
    while j < b.len() && b[j].is_ascii_alphabetic() {
        if b[j].is_ascii_uppercase() {
            stretch = 0;
        }
        let vowel = matches!(b[j].to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u' | b'y');
        consonants = if vowel { 0 } else { consonants + 1 };
        if stretch.is_multiple_of(LETTERS_PER_TOKEN) {
            cost += 4; // a token begins here: a stretch, or its next LETTERS_PER_TOKEN letters
        } else if consonants >= 3 {
            cost += CONSONANT_RUN;
        }
        stretch += 1;
        j += 1;
    }
    (cost, j)
}

/// Non-ASCII characters from `start`: by their UTF-8 length, two-byte letters
/// cheaper within a word-sized run.
fn non_ascii_run(b: &[u8], start: usize) -> (usize, usize) {
    let mut j = start;
    let mut two_byte = 0usize;
    let mut longer = 0usize;
    while j < b.len() && b[j] >= 0x80 {
        let len = match b[j] {
            0xf0.. => 4,
            0xe0.. => 3,
            0xc0.. => 2,
            _ => 1, // a continuation byte: only in text that is not UTF-8
        };
        match len {
            2 if common_letter(b[j]) => two_byte += 1,
            2 => longer += TWO_BYTE,
            3 => longer += THREE_BYTE,
            4 => longer += FOUR_BYTE,
            _ => longer += 4,
        }
        j += len;
    }
    let per_char = if two_byte <= WORD { TWO_BYTE_IN_WORD } else { TWO_BYTE };
    (longer + two_byte * per_char, j.min(b.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_small() {
        assert_eq!(estimate(""), 0);
        assert!(estimate("{}") >= 1);
        assert!(estimate("hello") >= 1);
    }

    #[test]
    fn random_text_costs_what_cl100k_makes_of_it_and_more_than_prose() {
        // Random-looking text (base64, hex) must cost far more than prose, and no less than it is.
        let bpe = tiktoken_rs::cl100k_base().expect("cl100k_base is embedded");
        let b64 = "TUiW+eF/2PCBZJbaCHo+vsxnaqosXYzhs8asvF8WcKmCG8cphd".repeat(20);
        let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".repeat(16);
        let prose = "the quick brown fox jumps over the lazy dog ".repeat(23);
        for random in [&b64, &hex] {
            let real = bpe.encode_with_special_tokens(random).len();
            assert!(estimate(random) >= real, "{}…: {} < cl100k {real}", &random[..8], estimate(random));
            assert!(2 * estimate(random) > 3 * estimate(&prose), "{} vs {}", estimate(random), estimate(&prose));
        }
    }

    #[test]
    fn letters_and_marks_never_more_than_a_token_a_byte_and_the_margin() {
        // Runs of capitals, consonants and marks: a token a byte at most, so that a 64 KiB body
        // of such a shape fits within the largest max_tokens (100,000).
        for text in ["B".repeat(60_000), "BCDFG".repeat(12_000), "-=".repeat(30_000), "Zz".repeat(30_000)] {
            let json = serde_json::to_string(&text).expect("a string");
            let most = (json.len() * (100 + MARGIN_PERCENT)).div_ceil(100);
            assert!(estimate(&json) <= most, "{}…: {} > {most}", &text[..8], estimate(&json));
        }
        let bpe = tiktoken_rs::cl100k_base().expect("cl100k_base is embedded");
        for text in ["\"BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB\"", "\"-=-=-=-=-=-=-=-=-=-=-=-=-=-=\"", "QWRTPSDFGHJKLZXCVBNM"]
        {
            let real = bpe.encode_with_special_tokens(text).len();
            assert!(estimate(text) >= real, "{text}: estimated {} < cl100k {real}", estimate(text));
        }
    }

    #[test]
    fn joins_cost_at_most_one_token() {
        let parts = ["{\"id\":1,\"message\":\"abc", "def 12", "34 ünïcödé\"}", "日本語", "  \n", "xyz", "BBBB", "--=="];
        for a in parts {
            for b in parts {
                let whole = estimate(&format!("{a}{b}"));
                assert!(whole <= estimate(a) + estimate(b) + 1, "{a:?} + {b:?}: {whole}");
            }
        }
    }

    #[test]
    fn hostile_text_is_not_under_counted() {
        // What a black-box client measured above its budget: combining marks stacked on letters
        // ("zalgo"), supplementary-plane CJK between letters, Latin Extended mixed with ASCII.
        let bpe = tiktoken_rs::cl100k_base().expect("cl100k_base is embedded");
        let mut seed = 7u32;
        let mut pick = |n: u32| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 8) % n
        };
        let zalgo: String = (0..1_500)
            .flat_map(|i| {
                let marks: Vec<char> = (0..8).map(|_| char::from_u32(0x300 + pick(0x70)).unwrap_or('x')).collect();
                std::iter::once(['a', 'e', 'o'][i % 3]).chain(marks)
            })
            .collect();
        let astral: String = (0..3_000)
            .flat_map(|i| [(b'a' + (i % 26) as u8) as char, char::from_u32(0x20000 + pick(0x2000)).unwrap_or('x')])
            .collect();
        let spaced: String =
            (0..3_000).flat_map(|_| [' ', char::from_u32(0x20000 + pick(0x2000)).unwrap_or('x')]).collect();
        let latin_ext: String = (0..6_000)
            .map(|_| {
                if pick(2) == 0 {
                    (b'a' + pick(26) as u8) as char
                } else {
                    char::from_u32(0x100 + pick(0x80)).unwrap_or('x')
                }
            })
            .collect();
        for (name, text) in [("zalgo", zalgo), ("astral", astral), ("spaced", spaced), ("latin_ext", latin_ext)] {
            let json = serde_json::to_string(&text).expect("a string");
            let real = bpe.encode_with_special_tokens(&json).len();
            assert!(estimate(&json) >= real, "{name}: estimated {} < cl100k {real}", estimate(&json));
        }
    }

    #[test]
    fn never_panics_on_cut_utf8() {
        let s = "é日😀";
        for end in 0..=s.len() {
            let _ = quarters(&s.as_bytes()[..end]);
            let _ = quarters(&s.as_bytes()[end..]);
        }
    }
}
