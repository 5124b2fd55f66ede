// Redaction, applied before anything leaves the page and again in the service
// worker: secret headers, secret keys in bodies and query strings, and the
// values of password, card and secret inputs.
(function (root) {
  const REDACTED = "[redacted]";
  const SECRET_HEADERS = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"];
  // Header names that look like carriers of credentials: x-auth-token, api-key, x-csrf-token…
  const SECRET_HEADER_PATTERN = /api[-_]?key|auth|token|secret|passw|session|cookie/i;
  const SECRET_BODY_KEYS = ["password", "passwd", "secret", "token", "apikey", "authorization", "cvv", "cardnumber"];
  // Inputs whose value is never recorded.
  const SECRET_INPUT_PATTERN = /pass|secret|token|card|cc-?(num|csc|exp)|cvv|cvc|ssn|\bpin\b|otp|one-time/i;
  // Bodies larger than this are redacted by pattern rather than parsed.
  const PARSE_LIMIT = 256 * 1024;

  const norm = (s) => String(s).toLowerCase().replace(/[-_\s]/g, "");

  /** Redaction settings from the user's extra lists. */
  function policy(extraHeaders = [], extraBodyKeys = []) {
    return {
      headers: new Set([...SECRET_HEADERS, ...extraHeaders.map((h) => String(h).toLowerCase().trim())]),
      bodyKeys: [...SECRET_BODY_KEYS, ...extraBodyKeys].map(norm).filter(Boolean),
    };
  }
  const DEFAULT_POLICY = policy();

  function isSecretHeader(name, p = DEFAULT_POLICY) {
    const lower = String(name).toLowerCase();
    return p.headers.has(lower) || SECRET_HEADER_PATTERN.test(lower);
  }

  function isSecretKey(key, p = DEFAULT_POLICY) {
    const k = norm(key);
    return p.bodyKeys.some((secret) => k.includes(secret));
  }

  /** A copy of `headers` (object of name → value) with secret values replaced. */
  function redactHeaders(headers, p = DEFAULT_POLICY) {
    const out = {};
    for (const [name, value] of Object.entries(headers || {})) out[name] = isSecretHeader(name, p) ? REDACTED : value;
    return out;
  }

  function redactJson(value, p) {
    if (Array.isArray(value)) return value.map((v) => redactJson(v, p));
    if (value && typeof value === "object") {
      const out = {};
      for (const [k, v] of Object.entries(value)) out[k] = isSecretKey(k, p) ? REDACTED : redactJson(v, p);
      return out;
    }
    return value;
  }

  // key=value, "key": "value" and key: value, for bodies that cannot be parsed.
  function redactByPattern(text, p) {
    return text.replace(
      /("?)([\w.-]+)\1(\s*[:=]\s*)("(?:[^"\\]|\\.)*"|[^&\s,;}]+)/g,
      (whole, quote, key, sep, value) =>
        isSecretKey(key, p) ? `${quote}${key}${quote}${sep}${value.startsWith('"') ? `"${REDACTED}"` : REDACTED}` : whole,
    );
  }

  /** `text` with the values of secret keys replaced: JSON, form-encoded, or by pattern. */
  function redactBody(text, p = DEFAULT_POLICY) {
    if (typeof text !== "string" || text === "") return text;
    const trimmed = text.trimStart();
    if (text.length <= PARSE_LIMIT && (trimmed.startsWith("{") || trimmed.startsWith("["))) {
      try {
        return JSON.stringify(redactJson(JSON.parse(text), p));
      } catch {
        // not JSON after all (or cut): fall through to the pattern
      }
    }
    return redactByPattern(text, p);
  }

  /** `url` with the values of secret query parameters replaced. */
  function redactUrl(url, p = DEFAULT_POLICY) {
    const s = String(url);
    if (!s.includes("?")) return s;
    try {
      const u = new URL(s, "http://x.invalid");
      let changed = false;
      for (const key of [...u.searchParams.keys()]) {
        if (isSecretKey(key, p)) {
          u.searchParams.set(key, REDACTED);
          changed = true;
        }
      }
      if (!changed) return s;
      return s.startsWith("http") ? u.toString() : u.pathname + u.search + u.hash;
    } catch {
      return s;
    }
  }

  /** True when an input's value must never be recorded. */
  function isSecretInput(el) {
    if (!el) return false;
    const type = String(el.type || "").toLowerCase();
    if (type === "password") return true;
    const names = [el.name, el.id, el.getAttribute && el.getAttribute("autocomplete")].filter(Boolean).join(" ");
    return SECRET_INPUT_PATTERN.test(names);
  }

  const redact = {
    REDACTED,
    policy,
    isSecretHeader,
    isSecretKey,
    redactHeaders,
    redactBody,
    redactUrl,
    isSecretInput,
  };
  if (typeof module === "object" && module.exports) module.exports = redact;
  else root.__gasoline.redact = redact;
})(globalThis);
