// What counts as a secret: key names, header names, values that are secrets
// whatever their key, and inputs whose value is never read. Pure rules; how
// they are applied to text, URLs, headers and bodies is in lib/redact.js.
// Registry: reads nothing; adds secrets.
(function (root) {
  // A key is secret when one of its words is one of these ("user_password",
  // "authToken", "X-Session-Id"), compared word by word so that count-like
  // keys ("max_tokens", "prompt_tokens", "tokenizer") are kept.
  const SECRET_WORDS = new Set([
    "password", "passwd", "pwd", "pass", "passphrase", "secret", "secrets", "token", "auth", "authorization",
    "bearer", "credential", "credentials", "session", "sid", "cookie", "jwt", "otp", "pin", "ssn", "cvc", "cvv",
    "csc", "signature", "apikey", "apikeys", "privatekey", "sess", "passcode", "pw", "cvv2", "cvc2", "csrf", "xsrf",
  ]);
  // Whole keys, lower case with separators removed (Sentry's defaults among them).
  // "sig" only as a whole key (a signed URL's `sig=`): as a word it is React's `$RefreshSig$`.
  const SECRET_KEYS = new Set([
    "sig", "apikey", "privatekey", "mysqlpwd", "clientsecret", "refreshtoken", "accesstoken", "idtoken", "cardnumber",
    "ccnumber", "creditcard", "creditcardnumber", "cardno", "securitycode", "xamzsignature", "xamzcredential",
    "xamzsecuritytoken", "setcookie", "proxyauthorization", "sessionid", "accesskey", "secretkey", "xapikey",
    "subscriptionkey", "encryptionkey", "signingkey", "masterkey", "licensekey", "mfacode", "totpcode",
    "recoverycode", "recoverycodes", "backupcode", "backupcodes", "webhookurl",
  ]);
  // Keys glued into one word end like this: "accesstoken", "csrfmiddlewaretoken", "newpassword", "phpsessid";
  // so does a glued word among others (Django's META names the X-CSRFToken header HTTP_X_CSRFTOKEN).
  const SECRET_SUFFIXES = ["token", "secret", "password", "passwd", "apikey", "sessionid", "sessid", "signature", "privatekey", "secretkey"];
  // Session cookies named with a hash after a fixed start (Laravel's remember_web_<hash>, WordPress's
  // wordpress_logged_in_<hash> and wordpress_sec_<hash>), lower case with separators removed.
  const SECRET_PREFIXES = ["rememberweb", "wordpressloggedin", "wordpresssec"];
  // Secret only as a query, fragment or form field (the OAuth `code`, Google's `?key=`): in JSON
  // and logged objects `code` and `key` are error codes and React keys far more often.
  const FORM_ONLY_KEYS = new Set(["code", "key"]);
  // A last word like these says the value describes a secret rather than holds one
  // ("password_length", "token_count", "session_timeout"; a framework's settings such as Django's
  // SESSION_COOKIE_AGE, CSRF_COOKIE_NAME, SESSION_ENGINE, AUTH_USER_MODEL, PASSWORD_HASHERS).
  const DESCRIPTIVE_LAST_WORDS = new Set([
    "count", "counts", "length", "size", "total", "limit", "used", "remaining", "type", "expires", "expiry", "ttl",
    "timeout", "enabled", "required", "strength", "label", "field", "policy",
    "age", "name", "engine", "model", "path", "domain", "samesite", "secure", "httponly", "backend", "backends",
    "class", "header", "validators", "hashers", "algorithm", "format", "version",
    // Django's CSRF_TRUSTED_ORIGINS, CSRF_FAILURE_VIEW, CSRF_USE_SESSIONS, SESSION_SERIALIZER,
    // SESSION_CACHE_ALIAS, SESSION_SAVE_EVERY_REQUEST, SESSION_EXPIRE_AT_BROWSER_CLOSE: what a CSRF
    // refusal is debugged with.
    "origins", "view", "sessions", "serializer", "alias", "request", "close",
    // A framework's objects, named for what they work on: Stimulus' `tokenListObserver`, an
    // `authController`, a `sessionManager` hold code, not a secret (a Turbo review).
    "observer", "observers", "listener", "listeners", "handler", "handlers", "controller", "controllers",
    "manager", "provider", "factory", "callback", "callbacks", "module",
  ]);

  // Azure API Management's and Azure Functions' keys, Honeycomb's team key.
  const SECRET_HEADERS = new Set([
    "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "ocp-apim-subscription-key",
    "x-functions-key", "x-honeycomb-team",
  ]);
  // Header names that carry credentials: x-auth-token, api-key, x-csrf-token, x-amz-security-token…
  const SECRET_HEADER_PATTERN = /api[-_]?key|subscription[-_]?key|auth|token|secret|passw|session|cookie|signature|credential|csrf|xsrf/i;

  // Values that are secrets under any key. Every group inside is non-capturing:
  // they are joined into one expression whose n-th group says which rule matched.
  const VALUE_RULES = [
    ["jwt", /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/, "[redacted]"],
    ["bearer", /\b(?:[Bb]earer|BEARER)\s+[A-Za-z0-9\-._~+/]{8,}=*/, "Bearer [redacted]"],
    // Shorter than 8 characters only when it decodes to `user:password` (lib/redact.js checks).
    ["basic", /\b(?:[Bb]asic|BASIC)\s+[A-Za-z0-9+/]{4,}={0,2}/, "Basic [redacted]"],
    ["aws", /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/, "[redacted]"],
    ["stripe", /\b[sr]k_(?:live|test)_[0-9A-Za-z]{10,}/, "[redacted]"],
    ["github", /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})/, "[redacted]"],
    ["slack", /\bxox[abposre]-[A-Za-z0-9-]{10,}/, "[redacted]"],
    // A Slack incoming webhook: whoever has the URL can post to the channel.
    ["slack_webhook", /(?<=\bhooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]{16,}/, "[redacted]"],
    // OpenAI's and Anthropic's keys (sk-…, sk-proj-…, sk-ant-api03-…), Hugging Face, npm, GitLab, a Google OAuth token.
    ["sk", /\bsk-(?:proj-|ant-(?:api\d\d-|admin\d\d-)?|svcacct-|admin-)?[A-Za-z0-9_-]{32,}/, "[redacted]"],
    ["huggingface", /\bhf_[A-Za-z0-9]{30,}/, "[redacted]"],
    ["npm", /\bnpm_[A-Za-z0-9]{36}\b/, "[redacted]"],
    ["gitlab", /\bglpat-[A-Za-z0-9_-]{20,}/, "[redacted]"],
    ["google_oauth", /\bya29\.[0-9A-Za-z_-]{20,}/, "[redacted]"],
    ["google", /\bAIza[0-9A-Za-z_-]{35}/, "[redacted]"],
    ["pem", /-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE KEY-----|$)/, "[redacted]"],
    // 13 to 19 digits, spaces or dashes between, of a card network (first digit 2-6), kept
    // unless the Luhn check passes: timestamps start with 1, order numbers fail Luhn.
    ["card", /(?<![\d.])[2-6]\d{3}(?:[ -]?\d){9,15}(?![\d])/, "[redacted]"],
  ];
  const VALUE_PATTERN = new RegExp(VALUE_RULES.map(([, re]) => `(${re.source})`).join("|"), "g");
  // Cheap pre-check: every rule needs one of these somewhere in the text.
  const VALUE_HINT = /eyJ|earer|EARER|asic|ASIC|hooks\.slack|A[KSGIRNP][IPDON]A|k_(?:live|test)_|gh[pousr]_|github_pat_|xox|AIza|sk-|hf_|npm_|glpat-|ya29\.|PRIVATE KEY|[2-6]\d{3}/;

  /** The Luhn check over the digits of `s`. */
  function luhn(s) {
    const digits = s.replace(/\D/g, "");
    if (digits.length < 13 || digits.length > 19) return false;
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2 === 1) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    return sum % 10 === 0;
  }

  const flat = (s) => String(s).toLowerCase().replace(/[^a-z0-9]/g, "");

  /** Redaction settings with the user's extra lists (options page). */
  function policy(extraHeaders = [], extraKeys = []) {
    return {
      headers: new Set([...SECRET_HEADERS, ...extraHeaders.map((h) => String(h).toLowerCase().trim()).filter(Boolean)]),
      keys: new Set(extraKeys.map(flat).filter(Boolean)),
      cache: new Map(), // key → secret?, per policy
    };
  }

  function decodeKey(key) {
    const s = String(key);
    if (!s.includes("%") && !s.includes("+")) return s;
    try {
      return decodeURIComponent(s.replace(/\+/g, " "));
    } catch {
      return s;
    }
  }

  // Secret only as the whole key, never as one word of a longer one (`prevRefreshSig`, React Refresh's).
  const WHOLE_ONLY_KEYS = new Set(["sig"]);
  const isSecretWord = (w, p) => SECRET_WORDS.has(w) || (SECRET_KEYS.has(w) && !WHOLE_ONLY_KEYS.has(w)) || p.keys.has(w);

  function segmentIsSecret(segment, p, form) {
    const whole = flat(segment);
    if (!whole || /^\d+$/.test(whole)) return false;
    if (p.keys.has(whole) || SECRET_KEYS.has(whole) || (form && FORM_ONLY_KEYS.has(whole))) return true;
    if (SECRET_PREFIXES.some((s) => whole.startsWith(s))) return true;
    const words = segment
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    if (words.length > 1 && DESCRIPTIVE_LAST_WORDS.has(words[words.length - 1])) return false;
    if (words.some((w) => isSecretWord(w, p))) return true;
    // Two words that make one secret name: OPENAI_API_KEY, googleApiKey, mapboxAccessKey, client-secret.
    for (let i = 0; i + 1 < words.length; i++) if (isSecretWord(words[i] + words[i + 1], p)) return true;
    return words.some((w) => SECRET_SUFFIXES.some((s) => w.endsWith(s)));
  }

  /**
   * True when the value under `key` must not be kept. `form` is true for query,
   * fragment and form fields. Bracketed and percent-encoded keys
   * (`user[password]`, `user%5Bpassword%5D`, `a.b.token`) are checked part by part.
   */
  function isSecretKey(key, p, form = false) {
    // The shell's working directories, in an environment a debug page or a log dumps (Django's
    // META, `process.env`): paths, not passwords, though "pwd" is one's short name.
    if (key === "PWD" || key === "OLDPWD") return false;
    const cacheKey = form ? `f:${key}` : `j:${key}`;
    const known = p.cache.get(cacheKey);
    if (known !== undefined) return known;
    const segments = decodeKey(key).split(/[[\].]+/);
    const secret = segments.some((s) => segmentIsSecret(s, p, form));
    if (p.cache.size > 4096) p.cache.clear();
    p.cache.set(cacheKey, secret);
    return secret;
  }

  function isSecretHeader(name, p) {
    const lower = String(name).toLowerCase();
    if (p.headers.has(lower)) return true;
    // CORS headers hold origins, methods, header names and a boolean, never a credential:
    // `access-control-allow-credentials: true` is what a CORS refusal is debugged with.
    if (lower.startsWith("access-control-")) return false;
    return SECRET_HEADER_PATTERN.test(lower) || isSecretKey(lower, p);
  }

  // Inputs whose value is never read: passwords, card fields, one-time, recovery and verification
  // codes, PINs, keys and seed phrases; and every name the key rules call secret.
  const SECRET_INPUT_PATTERN =
    /pass|pwd|secret|token|card|cc-?(num|csc|exp)|cvv|cvc|ssn|(^|[^a-z])pin([^a-z]|$)|otp|one-time|api.?key|private.?key|seed.?phrase|mnemonic|(mfa|2fa|totp|sms|verif[a-z]*|recovery|backup|auth[a-z]*|security|access|login)[-_ ]?codes?/i;
  const INPUT_POLICY = policy();

  // How much of a label's text is read: the words that name a field come first.
  const LABEL_TEXT = 80;

  /**
   * The text that names a field to the user where its attributes may not: its `<label>`s, the
   * elements its `aria-labelledby` names, its `title`. A payment form's fields are often named
   * only so (`<label for="f2">CVC</label><input id="f2" name="f2">`).
   */
  function labelsOf(el, attr) {
    const texts = [attr("title")];
    try {
      for (const label of el.labels || []) texts.push(label.textContent);
      const ids = attr("aria-labelledby");
      const root = ids && (el.getRootNode ? el.getRootNode() : el.ownerDocument);
      if (root && typeof root.getElementById === "function") {
        for (const id of String(ids).split(/\s+/)) {
          const label = id ? root.getElementById(id) : null;
          if (label) texts.push(label.textContent);
        }
      }
    } catch {
      // a detached or odd element: its attributes decide
    }
    return texts.filter(Boolean).map((t) => String(t).trim().slice(0, LABEL_TEXT));
  }

  /** True when an input's value must never be recorded. */
  function isSecretInput(el) {
    if (!el) return false;
    const type = String(el.type || "").toLowerCase();
    if (type === "password") return true;
    // What names the field to the user too: a "Password" field may be named only by its placeholder or label.
    const attr = (n) => (el.getAttribute ? el.getAttribute(n) : null);
    const names = [el.name, el.id, attr("autocomplete"), attr("placeholder"), attr("aria-label")].filter(Boolean).map(String);
    const secret = (n) => SECRET_INPUT_PATTERN.test(n) || isSecretKey(n, INPUT_POLICY, true);
    return names.some(secret) || labelsOf(el, attr).some(secret);
  }

  const secrets = {
    VALUE_RULES,
    VALUE_PATTERN,
    VALUE_HINT,
    luhn,
    policy,
    isSecretKey,
    isSecretHeader,
    isSecretInput,
  };
  if (typeof module === "object" && module.exports) module.exports = secrets;
  root.__gasoline = Object.assign(root.__gasoline || {}, { secrets });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoic2VjcmV0cy5qcyIsInNvdXJjZXMiOlsiZ2Fzb2xpbmUtZXh0ZW5zaW9uOi8vL2xpYi9zZWNyZXRzLmpzIl0sIm5hbWVzIjpbXSwibWFwcGluZ3MiOiJBQUFBIiwiaWdub3JlTGlzdCI6WzBdLCJ4X2dvb2dsZV9pZ25vcmVMaXN0IjpbMF19
