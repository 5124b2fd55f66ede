//! `--since TIME`: an RFC 3339 time, epoch milliseconds, or an age such as
//! `10m`, `2h`, `1d` or `1h30m` (humantime's units) counted back from now.

use chrono::DateTime;

/// Milliseconds since the epoch that `text` names, `now_ms` being now; None if it names no time.
pub fn parse(text: &str, now_ms: i64) -> Option<i64> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().ok();
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.timestamp_millis());
    }
    let age = humantime::parse_duration(text).ok()?;
    let age = i64::try_from(age.as_millis()).ok()?;
    now_ms.checked_sub(age)
}

#[cfg(test)]
mod tests {
    use super::parse;

    const NOW: i64 = 1_800_000_000_000;

    #[test]
    fn accepts_the_three_forms() {
        assert_eq!(parse("1700000000123", NOW), Some(1_700_000_000_123));
        assert_eq!(parse("2023-11-14T22:13:20.123Z", NOW), Some(1_700_000_000_123));
        assert_eq!(parse("2023-11-14T23:13:20+01:00", NOW), Some(1_700_000_000_000));
        assert_eq!(parse("10m", NOW), Some(NOW - 600_000));
        assert_eq!(parse("2h", NOW), Some(NOW - 7_200_000));
        assert_eq!(parse("1h30m", NOW), Some(NOW - 5_400_000));
        assert_eq!(parse("1d", NOW), Some(NOW - 86_400_000));
    }

    #[test]
    fn refuses_what_is_not_a_time() {
        for bad in ["", "yesterday", "2023-13-01T00:00:00Z", "-5m", "5 parsecs"] {
            assert_eq!(parse(bad, NOW), None, "{bad:?}");
        }
    }
}
