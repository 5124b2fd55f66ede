//! The size of an answer, in characters and in estimated tokens, and fitting
//! whole entries into what is left of it.

use super::entry;
use super::tokens;

/// What one text costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    pub chars: usize,
    pub tokens: usize,
}

impl Cost {
    pub fn of(text: &str) -> Cost {
        Cost { chars: entry::chars(text), tokens: tokens::estimate(text) }
    }

    /// The cost of `self` followed by `other` (plus a token for the join).
    pub fn plus(self, other: Cost) -> Cost {
        Cost { chars: self.chars + other.chars, tokens: self.tokens + other.tokens + 1 }
    }
}

/// The most an answer may cost: `max_chars` and `max_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub chars: usize,
    pub tokens: usize,
}

impl Budget {
    pub fn admits(&self, cost: Cost) -> bool {
        cost.chars <= self.chars && cost.tokens <= self.tokens
    }

    /// What is left after `cost`.
    pub fn minus(&self, cost: Cost) -> Budget {
        Budget { chars: self.chars.saturating_sub(cost.chars), tokens: self.tokens.saturating_sub(cost.tokens) }
    }
}

/// Keeps as many whole entries as fit `room`, from the start, or from the end
/// when `keep_newest`. `make(i)` builds entry i's text when it is considered,
/// so costly parts (error context) are only built for entries that may fit.
/// A first entry that alone is too large is clipped, so every call makes
/// progress. Returns the entries in their original order and whether any were
/// left out or clipped, or the first error `make` met.
pub fn fit<E>(
    ids: &[i64],
    room: Budget,
    keep_newest: bool,
    mut make: impl FnMut(usize) -> Result<String, E>,
) -> Result<(Vec<(i64, String)>, bool), E> {
    let n = ids.len();
    let mut kept: Vec<(i64, String)> = Vec::new();
    let mut used = Cost::default();
    let mut cut = false;
    for step in 0..n {
        let i = if keep_newest { n - 1 - step } else { step };
        let text = make(i)?;
        let cost = Cost::of(&text);
        let total = if kept.is_empty() { cost } else { used.plus(cost) };
        if !room.admits(total) {
            if kept.is_empty()
                && let Some(clipped) = clip_entry(&text, room)
            {
                kept.push((ids[i], clipped));
            }
            cut = true;
            break;
        }
        used = total;
        kept.push((ids[i], text));
    }
    if keep_newest {
        kept.reverse();
    }
    Ok((kept, cut))
}

/// For a drill-down by ids: every entry that fits what is left, in order, passing over one that
/// does not, so that a large entry does not keep the small ones after it out; the first clipped
/// when none fits whole. Returns the entries and whether any were left out or clipped.
pub fn fit_each<E>(
    ids: &[i64],
    room: Budget,
    mut make: impl FnMut(usize) -> Result<String, E>,
) -> Result<(Vec<(i64, String)>, bool), E> {
    let mut kept: Vec<(i64, String)> = Vec::new();
    let mut used = Cost::default();
    let mut first_left_out: Option<(i64, String)> = None;
    for (i, id) in ids.iter().enumerate() {
        let text = make(i)?;
        let cost = Cost::of(&text);
        let total = if kept.is_empty() { cost } else { used.plus(cost) };
        if room.admits(total) {
            used = total;
            kept.push((*id, text));
        } else if first_left_out.is_none() {
            first_left_out = Some((*id, text));
        }
    }
    let cut = kept.len() < ids.len();
    if kept.is_empty()
        && let Some((id, text)) = first_left_out
        && let Some(clipped) = clip_entry(&text, room)
    {
        kept.push((id, clipped));
    }
    Ok((kept, cut))
}

/// An entry shortened to fit `room` ([`clip`]), or `None` when nothing of it but its identity
/// would be left: a shell that says neither what happened nor where would pass for an answer,
/// and a cursor past it would skip what the entry said.
pub fn clip_entry(text: &str, room: Budget) -> Option<String> {
    let clipped = clip(text, room);
    (!entry::is_shell(&clipped)).then_some(clipped)
}

/// Shortens an entry until it fits `room`, keeping its identity fields.
pub fn clip(text: &str, room: Budget) -> String {
    // A token is at least one character of JSON, so `tokens` characters is a
    // first guess that the estimate then confirms, halving while it does not.
    let mut target = room.chars.min(room.tokens.saturating_mul(2)).max(1);
    loop {
        let clipped = entry::clip(text, target);
        if room.admits(Cost::of(&clipped)) || target <= 32 {
            return clipped;
        }
        target /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_each_passes_over_an_entry_too_large_and_keeps_the_ones_after_it() {
        let texts =
            ["{\"id\":1}".to_string(), format!("{{\"id\":2,\"m\":\"{}\"}}", "x".repeat(500)), "{\"id\":3}".to_string()];
        let room = Budget { chars: 130, tokens: 130 };
        let (kept, cut) = fit_each(&[1, 2, 3], room, |i| Ok::<_, ()>(texts[i].clone())).unwrap();
        assert_eq!(kept.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [1, 3]);
        assert!(cut);
        let (alone, _) = fit_each(&[2], room, |_| Ok::<_, ()>(texts[1].clone())).unwrap();
        assert_eq!(alone.len(), 1, "alone, it is clipped");
        assert!(room.admits(Cost::of(&alone[0].1)) && alone[0].1.len() < texts[1].len());
    }

    #[test]
    fn fit_keeps_whole_entries_within_both_limits() {
        let texts: Vec<String> =
            (0..100).map(|i| format!("{{\"id\":{i},\"message\":\"{}\"}}", "word ".repeat(20))).collect();
        let ids: Vec<i64> = (0..100).collect();
        let room = Budget { chars: 100_000, tokens: 500 };
        let (kept, cut) = fit(&ids, room, false, |i| Ok::<_, ()>(texts[i].clone())).unwrap();
        assert!(cut);
        assert!(!kept.is_empty() && kept.len() < 100);
        let joined: Vec<&str> = kept.iter().map(|(_, t)| t.as_str()).collect();
        assert!(Cost::of(&joined.join(",")).tokens <= 500);
        assert_eq!(kept[0].0, 0);
        let (newest, _) = fit(&ids, room, true, |i| Ok::<_, ()>(texts[i].clone())).unwrap();
        assert_eq!(newest.last().map(|e| e.0), Some(99));
    }

    #[test]
    fn a_lone_entry_too_large_is_clipped_to_fit() {
        let big = format!("{{\"id\":7,\"tabId\":1,\"ts\":2,\"body\":\"{}\"}}", "aZ9+".repeat(20_000));
        let room = Budget { chars: 40_000, tokens: 600 };
        let (kept, cut) = fit(&[7], room, false, |_| Ok::<_, ()>(big.clone())).unwrap();
        assert!(cut);
        assert!(room.admits(Cost::of(&kept[0].1)), "{:?}", Cost::of(&kept[0].1));
        assert!(kept[0].1.contains("\"_clipped\":true"));
    }

    #[test]
    fn an_entry_that_would_keep_nothing_but_its_identity_is_not_clipped_but_left_out() {
        let error =
            format!("{{\"id\":5,\"tabId\":1,\"message\":\"{}\",\"at\":\"src/cart.ts:5:16\"}}", "boom ".repeat(60));
        let tight = Budget { chars: 90, tokens: 45 };
        let (kept, cut) = fit(&[5], tight, false, |_| Ok::<_, ()>(error.clone())).unwrap();
        assert!(cut && kept.is_empty(), "{kept:?}");
        let (kept, _) = fit_each(&[5], tight, |_| Ok::<_, ()>(error.clone())).unwrap();
        assert!(kept.is_empty(), "{kept:?}");
        // With room for a field beside its identity, it is clipped to what fits.
        let (kept, _) = fit(&[5], Budget { chars: 150, tokens: 75 }, false, |_| Ok::<_, ()>(error.clone())).unwrap();
        assert!(kept[0].1.contains("src/cart.ts:5:16") && kept[0].1.contains("\"_clipped\":true"), "{kept:?}");
    }
}
