//! Secrets in the source lines the server stores beside a frame (`context`, from a map's
//! `sourcesContent`). The extension redacts what a page does before it leaves the browser; the
//! source text is fetched by the server, so no rule of the extension's ever sees it. Here, a
//! line keeps its code and loses the secrets written in it: the well-known credential formats
//! of the extension's value rules (`extension/lib/secrets.js`, `VALUE_RULES`: JWTs, bearer
//! tokens, cloud, payment, source-host and chat keys, private keys) and a quoted string given
//! to a name that says it holds one (`password: "…"`, `apiKey = '…'`). Pure.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// What stands in place of a secret.
pub const REDACTED: &str = "[redacted]";

/// The credential formats, as the extension's value rules write them (those that need no
/// look-behind or checksum: the card rule's Luhn check and the Slack webhook's path are the
/// extension's alone; a card number in source code is a test card).
const FORMATS: &[&str] = &[
    r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",
    r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
    r"\b[sr]k_(?:live|test)_[0-9A-Za-z]{10,}",
    r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})",
    r"\bxox[abposre]-[A-Za-z0-9-]{10,}",
    r"\bsk-(?:proj-|ant-(?:api\d\d-|admin\d\d-)?|svcacct-|admin-)?[A-Za-z0-9_-]{32,}",
    r"\bhf_[A-Za-z0-9]{30,}",
    r"\bnpm_[A-Za-z0-9]{36}\b",
    r"\bglpat-[A-Za-z0-9_-]{20,}",
    r"\bya29\.[0-9A-Za-z_-]{20,}",
    r"\bAIza[0-9A-Za-z_-]{35}",
    r"-----BEGIN[A-Z ]*PRIVATE KEY-----.*",
];

static FORMAT: LazyLock<Regex> = LazyLock::new(|| {
    let joined = FORMATS.iter().map(|f| format!("(?:{f})")).collect::<Vec<_>>().join("|");
    Regex::new(&joined).expect("the credential formats compile")
});

/// `Bearer <token>`: the word kept, the token not.
static BEARER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b([Bb]earer|BEARER)\s+[A-Za-z0-9\-._~+/]{8,}=*").expect("the bearer rule compiles"));

/// A name that holds a secret (`password`, `clientSecret`, `api_key`, `accessToken`, …), then `:`
/// or `=`, then a quoted string on the same line: the string's content is the secret.
static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?i)(\b[\w$]*(?:password|passwd|passphrase|secret|api_?key|access_?token|auth_?token|refresh_?token|"#,
        r#"id_?token|private_?key|credential)[\w$]*["']?\s*[:=]\s*)"#,
        r#"("[^"\r\n]+"|'[^'\r\n]+'|`[^`\r\n]+`)"#,
    ))
    .expect("the assignment rule compiles")
});

/// `line` with the secrets written in it replaced by [`REDACTED`].
pub fn redact_line(line: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(line);
    if ASSIGNED.is_match(&out) {
        let replaced = ASSIGNED.replace_all(&out, |c: &Captures<'_>| {
            let quote = &c[2][..1];
            format!("{}{quote}{REDACTED}{quote}", &c[1])
        });
        out = Cow::Owned(replaced.into_owned());
    }
    if BEARER.is_match(&out) {
        out = Cow::Owned(BEARER.replace_all(&out, format!("$1 {REDACTED}")).into_owned());
    }
    if FORMAT.is_match(&out) {
        out = Cow::Owned(FORMAT.replace_all(&out, REDACTED).into_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_formats_are_redacted_and_the_code_kept() {
        let cases = [
            (r#"const stripe = Stripe("sk_live_ZQXctxStripeKey1234567");"#, r#"const stripe = Stripe("[redacted]");"#),
            ("headers.Authorization = `Bearer abcdefgh12345678`;", "headers.Authorization = `Bearer [redacted]`;"),
            ("const aws = 'AKIAIOSFODNN7EXAMPLE';", "const aws = '[redacted]';"),
            ("fetch(url, { token: 'eyJhbGciOi.eyJzdWIiOiIx.sig' })", "fetch(url, { token: '[redacted]' })"),
            ("-----BEGIN RSA PRIVATE KEY-----MIIE", "[redacted]"),
            ("const gh = \"ghp_0123456789abcdefghij0123456789abcd\";", "const gh = \"[redacted]\";"),
        ];
        for (line, want) in cases {
            assert_eq!(redact_line(line), want, "{line}");
        }
    }

    #[test]
    fn quoted_values_of_secret_names_are_redacted() {
        assert_eq!(redact_line(r#"  password: "ZQXctxpw","#), r#"  password: "[redacted]","#);
        assert_eq!(redact_line("const apiKey = 'abc123';"), "const apiKey = '[redacted]';");
        assert_eq!(redact_line(r#"{"client_secret": "s3cr3t"}"#), r#"{"client_secret": "[redacted]"}"#);
        assert_eq!(redact_line("user.accessToken=`t0k3n`"), "user.accessToken=`[redacted]`");
    }

    #[test]
    fn code_that_holds_no_secret_is_left_as_it_is() {
        for line in [
            "  if (boom) {",
            "    throw new Error(\"boom from App\");",
            "const passwordLength = 12;",
            "input.type = visible ? \"text\" : \"password\";",
            "const max_tokens = 4096;",
            "setToken(response.token);",
        ] {
            assert!(matches!(redact_line(line), Cow::Borrowed(_)), "{line} → {}", redact_line(line));
        }
    }
}
