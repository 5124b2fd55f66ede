// Applying the rules of lib/secrets.js: free text, URLs, headers, bodies (JSON
// at any depth and JSON inside strings, GraphQL, form-encoded, multipart) and
// whole entries of every kind. Entries are redacted in the service worker, with
// the user's current lists, before anything is queued, stored or sent; the page
// uses the key rules alone (console.table cells by column, secret inputs).
// Always given text that is already cut to its cap, so its cost is bounded by
// the caps.
//
// Every function takes a `found` array and pushes the names of what it
// redacted ("requestBody.password", "message:jwt"), never a value.
// Registry: reads secrets; adds redact.
(function (root) {
  const secrets =
    typeof module === "object" && module.exports ? require("./secrets.js") : root.__gasoline.secrets;
  const { VALUE_RULES, VALUE_PATTERN, VALUE_HINT, luhn, isSecretKey, isSecretHeader } = secrets;
  // Taken now, before any page script can replace them.
  const parseJson = JSON.parse;
  const stringifyJson = JSON.stringify;
  const decodeBase64 = typeof root.atob === "function" ? root.atob.bind(root) : null;

  const REDACTED = "[redacted]";
  const MAX_FOUND = 32;
  const JSON_DEPTH = 64;
  const DEFAULT_POLICY = secrets.policy();

  function note(found, name) {
    if (found && found.length < MAX_FOUND && !found.includes(name)) found.push(name);
  }

  /** `text` with every value-pattern secret (JWT, Bearer, AWS, Stripe, card…) replaced. */
  function redactValues(text, found, field) {
    if (!VALUE_HINT.test(text)) return text;
    VALUE_PATTERN.lastIndex = 0;
    return text.replace(VALUE_PATTERN, (match, ...groups) => {
      const i = groups.findIndex((g, n) => n < VALUE_RULES.length && g !== undefined);
      const [rule, , replacement] = VALUE_RULES[i];
      if (rule === "card" && !luhn(match)) return match;
      if (rule === "basic" && !isBasicCredential(match)) return match;
      note(found, `${field}:${rule}`);
      return replacement;
    });
  }

  /**
   * `Basic <base64>` holds a credential when its base64 is 8 characters or more (as before), or
   * shorter and decodes to `user:password` (`Basic YTpi` is `a:b`); "Basic info" is prose.
   */
  function isBasicCredential(match) {
    const token = match.replace(/^\S+\s+/, "");
    if (token.replace(/=+$/, "").length >= 8) return true;
    if (!decodeBase64 || token.length % 4 !== 0) return false;
    try {
      return decodeBase64(token).includes(":");
    } catch {
      return false;
    }
  }

  // `key=`, `key:`, `"key":`, `'key' =>`, `\"key\":` (JSON inside a string), `user[password]=`,
  // `user%5Bpassword%5D=`, GraphQL `login(password: "x")`; and a quoted key of a few words
  // (`"Secret Key": "…"`).
  const KEY_VALUE = /(\\{0,7}["']?)([\w$%[\].-]{1,100})\1[ \t]*(=>|[:=])[ \t]*/g;
  const SPACED_KEY_VALUE = /(\\{0,7}["'])([\w$%[\].-]{1,40}(?: [\w$%[\].-]{1,40}){1,4})\1[ \t]*(=>|[:=])[ \t]*/g;
  // A logged pair whose first item names the second: a Map's entry (`{"[Map]":[["password","…"]]}`),
  // a header list (`[["X-Api-Key","…"]]`); and a `{name|key, value}` object (a form's
  // serializeArray(), a cookie, a settings row). Group 2 is the name; the value follows the match.
  const PAIR = /\[[ \t]*(\\{0,7}["'])([^"'\\\n]{1,100})\1[ \t]*,[ \t]*/g;
  const NAME_VALUE = /["']?(?:name|key)["']?[ \t]*:[ \t]*(\\{0,7}["'])([^"'\\\n]{1,100})\1[ \t]*,[ \t]*["']?value["']?[ \t]*:[ \t]*/g;
  // Headers whose whole value is the credential, scheme and all (`Authorization: Token …`,
  // `Cookie: a=1; b=2`): written as text, the value runs to the end of the line or the quote around it.
  const WHOLE_LINE_KEYS = new Set(["authorization", "proxy-authorization", "cookie", "set-cookie"]);
  const UNQUOTED_END = /[&\s,;})\]"'<>#]/;
  // A GraphQL variable as a value: `$name`, then what ends a bare value.
  const GRAPHQL_VARIABLE = /^\$[A-Za-z_]\w{0,99}(?:[\s,;})\]]|$)/;
  const USERINFO = /\b([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^\s/?#@"'<>]+)@/g;

  /** End (exclusive) of the bracketed value (`[…]` or `{…}`) starting at `i`, quotes respected. */
  function bracketEnd(text, i) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '"' || c === "'") {
        for (j++; j < text.length && text[j] !== c; j++) if (text[j] === "\\") j++;
      } else if (c === "[" || c === "{") depth++;
      else if ((c === "]" || c === "}") && --depth === 0) return { start: i, end: j + 1 };
    }
    return { start: i, end: text.length };
  }

  // After a YAML key: a block scalar's indicator (`|`, `>-`, `|2`…) or nothing, a comment, the line's end.
  const YAML_BLOCK_HEAD = /^(?:[|>][1-9+-]{0,2})?[ \t]*(?:#[^\r\n]*)?\r?\n/;

  /**
   * A YAML value on the lines after its key (`password:` then `  hunter2`, `key: |` then the
   * lines of a block scalar, a nested list): the lines indented past the key, when the key
   * starts its line. Its end (exclusive), or null when the value is not such a block.
   */
  function yamlBlock(text, keyAt, at) {
    const head = YAML_BLOCK_HEAD.exec(text.slice(at, at + 64));
    if (!head) return null;
    const lineStart = text.lastIndexOf("\n", keyAt - 1) + 1;
    const lead = text.slice(lineStart, keyAt);
    if (!/^[ \t]*(?:-[ \t]+)?$/.test(lead)) return null;
    let end = null;
    for (let i = at + head[0].length; i < text.length; ) {
      const next = text.indexOf("\n", i);
      const lineEnd = next < 0 ? text.length : next;
      const line = text.slice(i, lineEnd).replace(/\r$/, "");
      if (line.trim() !== "") {
        if (/^[ \t]*/.exec(line)[0].length <= lead.length) break;
        end = i + line.length;
      }
      if (next < 0) break;
      i = next + 1;
    }
    return end === null ? null : { end };
  }

  /** End (exclusive) of a whole-line header's value starting at `i`: the line's end or a closing quote (not an escaped one). */
  function lineEnd(text, i) {
    const m = /[\r\n]|(?<!\\)["'`]/.exec(text.slice(i));
    return { start: i, end: m ? i + m.index : text.length };
  }

  /** End (exclusive) of the value starting at `i`, and whether it is quoted. */
  function valueEnd(text, i) {
    const c = text[i];
    if (c === '"' || c === "'") {
      for (let j = i + 1; j < text.length; j++) {
        if (text[j] === "\\") j++;
        else if (text[j] === c) return { start: i + 1, end: j };
      }
      return { start: i + 1, end: text.length };
    }
    if (c === "\\") {
      // A quote escaped k times (JSON inside a string, k = 1; inside that again, k = 3) ends at
      // the next quote escaped exactly k times: the quotes of deeper levels carry more backslashes.
      let k = 0;
      while (text[i + k] === "\\") k++;
      if (text[i + k] === '"') {
        for (let j = i + k + 1; j < text.length; j++) {
          if (text[j] !== '"') continue;
          let run = 0;
          while (run < j && text[j - 1 - run] === "\\") run++;
          if (run === k) return { start: i + k + 1, end: j - k };
        }
        return { start: i + k + 1, end: text.length };
      }
    }
    let j = i;
    while (j < text.length && !UNQUOTED_END.test(text[j])) j++;
    return { start: i, end: j };
  }

  function redactKeyValues(text, p, found, field) {
    let s = text;
    if (s.includes("[")) s = replaceKeyValues(s, PAIR, p, found, field);
    if (!/[:=]/.test(s)) return s;
    s = replaceKeyValues(s, KEY_VALUE, p, found, field);
    if (/["'][^"'\n]* /.test(s)) s = replaceKeyValues(s, SPACED_KEY_VALUE, p, found, field);
    if (/value/.test(s)) s = replaceKeyValues(s, NAME_VALUE, p, found, field);
    return s;
  }

  // A value that is code: a name (dotted) called or indexed, its `(` or `[` (`ref('')`,
  // `request.POST["password"]`); after `await`, `new` and the like.
  const CALL = /^(?:(?:await|new|typeof|void|yield)[ \t]+)*[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*[ \t]*[([]/;

  // A file's name (`auth.ts`, `api-key-form.vue`) written as a position: `:line:column` right after it.
  const FILE_NAME = /\.[A-Za-z][A-Za-z0-9]{0,7}$/;
  const LINE_COLUMN = /^\d{1,9}:\d{1,9}(?!\d)/;

  /** Whether `key:` at `m` is a file's name followed by its line and column, nothing between. */
  function isPosition(text, m, at) {
    return m[0].length === m[2].length + 1 && FILE_NAME.test(m[2]) && LINE_COLUMN.test(text.slice(at, at + 20));
  }

  /** Whether a pair's second item, ending at `end` (inside its quotes, if any), is its last: `]` follows. */
  function closesPair(text, end) {
    let j = end;
    while (j < text.length && (text[j] === "\\" || text[j] === '"' || text[j] === "'")) j++;
    while (j < text.length && (text[j] === " " || text[j] === "\t")) j++;
    return text[j] === "]";
  }

  /** The values of `pattern`'s secret keys replaced: a quoted or bare value, a whole list or object, a whole header line. */
  function replaceKeyValues(text, pattern, p, found, field) {
    let out = "";
    let from = 0;
    pattern.lastIndex = 0;
    for (let m; (m = pattern.exec(text)); ) {
      const at = pattern.lastIndex;
      // `key=` is a form field (where `key` and `code` hold secrets) at the start of the text or
      // after `?`, `&`, `#` or `;`; after a space it is prose or markup (`<App key=4 >`).
      // A form's field has no space before its `=`: `password = request.POST[…]` starting a line
      // (a debug page's source) is code.
      const form =
        m[3] === "=" && (m.index === 0 || /[?&#;\n]/.test(text[m.index - 1])) && !/[ \t]/.test(m[0][m[0].indexOf("=") - 1]);
      if (at >= text.length || !isSecretKey(m[2], p, form)) continue;
      // A source position, not a pair: `secret-box.ts:10:52` in a stack, `session.ts:3:11` in a
      // build error. Its line and column are what locate the code (and map it to its source).
      if (m[3] === ":" && isPosition(text, m, at)) continue;
      const block = m[3] === ":" ? yamlBlock(text, m.index, at) : null;
      if (block) {
        out += text.slice(from, at) + (text[at - 1] === ":" ? " " : "") + REDACTED;
        from = block.end;
        pattern.lastIndex = block.end;
        note(found, `${field}.${m[2]}`);
        continue;
      }
      const bracketed = text[at] === "{" || text[at] === "[";
      const quoted = text[at] === '"' || text[at] === "'";
      // Code, not a value: `sig = () => …`, `token = (a, b)`, `password === input`, and outside a
      // form a call (`password = ref('')`, `token: await useCookie('auth')`: a code frame's line).
      if (text[at] === "(" || text[at] === "=") continue;
      if (!form && CALL.test(text.slice(at, at + 140))) continue;
      // GraphQL names no secret in a variable's definition (`$password: String!`) or a reference
      // to one (`login(password: $password)`): the value is in `variables`, redacted there.
      if (m[3] === ":" && !m[1] && (m[2][0] === "$" || GRAPHQL_VARIABLE.test(text.slice(at, at + 102)))) continue;
      const { start, end } = bracketed
        ? bracketEnd(text, at)
        : !quoted && WHOLE_LINE_KEYS.has(m[2].toLowerCase())
          ? lineEnd(text, at)
          : valueEnd(text, at);
      if (end <= start) continue;
      // A pair is two items: `['django.contrib.auth', 'django.contrib.contenttypes', …]` is a list.
      if (pattern === PAIR && !closesPair(text, end)) continue;
      out += text.slice(from, start) + REDACTED;
      from = end;
      pattern.lastIndex = Math.max(end, at);
      note(found, `${field}.${m[2]}`);
    }
    return from === 0 ? text : out + text.slice(from);
  }

  // An HTML `<input … name="csrf_token" … value="…">` or `<meta name="csrf-token" content="…">` (a
  // page's HTML, a server-rendered form): the value of a secret name, or of a password input.
  const HTML_FIELD = /<(input|meta)\b[^>]*>/gi;
  const HTML_ATTR = (name) => new RegExp(`\\s${name}\\s*=\\s*("[^"]*"|'[^']*'|[^\\s"'>]+)`, "i");
  const NAME_ATTR = HTML_ATTR("name");
  const TYPE_ATTR = HTML_ATTR("type");
  const VALUE_ATTR = /(\s(?:value|content)\s*=\s*)("[^"]*"|'[^']*'|[^\s"'>]+)/i;
  const unquote = (v) => (v[0] === '"' || v[0] === "'" ? v.slice(1, -1) : v);

  function redactHtmlFields(text, p, found, field) {
    if (!/<(input|meta)\b/i.test(text)) return text;
    return text.replace(HTML_FIELD, (tag) => {
      const name = NAME_ATTR.exec(tag);
      const type = TYPE_ATTR.exec(tag);
      const secret = (type && unquote(type[1]).toLowerCase() === "password") || (name && isSecretKey(unquote(name[1]), p, true));
      if (!secret || !VALUE_ATTR.test(tag)) return tag;
      note(found, `${field}.${name ? unquote(name[1]) : "password"}`);
      return tag.replace(VALUE_ATTR, (whole, head, value) => `${head}${value[0] === '"' || value[0] === "'" ? value[0] + REDACTED + value[0] : REDACTED}`);
    });
  }

  /** Free text (a console message, a stack, a frame): values, `key: value` pairs, URL userinfo. */
  function redactText(text, p = DEFAULT_POLICY, found = [], field = "text") {
    if (typeof text !== "string" || text === "") return text;
    let s = redactValues(text, found, field);
    if (s.includes("://") && s.includes("@")) {
      s = s.replace(USERINFO, (whole, scheme) => {
        note(found, `${field}.userinfo`);
        return `${scheme}${REDACTED}@`;
      });
    }
    return redactKeyValues(redactHtmlFields(s, p, found, field), p, found, field);
  }

  /** `a=1&b=2` pairs (a query, a fragment, a form body) with secret keys' values replaced. */
  function redactPairs(text, p, found, field) {
    return text
      .split("&")
      .map((pair) => {
        const eq = pair.indexOf("=");
        if (eq < 0) return redactValues(pair, found, field);
        const key = pair.slice(0, eq);
        const value = pair.slice(eq + 1);
        if (value !== "" && isSecretKey(key, p, true)) {
          note(found, `${field}.${key}`);
          return `${key}=${REDACTED}`;
        }
        const clean = redactValues(value, found, field);
        return clean === value ? pair : `${key}=${REDACTED}`;
      })
      .join("&");
  }

  // `;jsessionid=…` (a path parameter) and `/token=…` (a segment of a path or a hash route).
  const PATH_PARAM = /([;/])([^;/?#=]{1,100})=([^;/?#&]*)/g;

  function redactPathParams(path, p, found, field) {
    if (!path.includes("=")) return path;
    return path.replace(PATH_PARAM, (whole, sep, key, value) => {
      if (value === "" || !isSecretKey(key, p, true)) return whole;
      note(found, `${field}.${key}`);
      return `${sep}${key}=${REDACTED}`;
    });
  }

  /** A URL of any scheme (http, ws, relative) with userinfo, secret query and fragment values and value-pattern secrets replaced; the host is kept. */
  function redactUrl(url, p = DEFAULT_POLICY, found = [], field = "url") {
    if (typeof url !== "string" || url === "") return url;
    let s = url;
    const userinfo = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^/?#@]*)@/.exec(s);
    if (userinfo) {
      s = `${userinfo[1]}${REDACTED}@${s.slice(userinfo[0].length)}`;
      note(found, `${field}.userinfo`);
    }
    const hashAt = s.indexOf("#");
    let fragment = hashAt < 0 ? "" : s.slice(hashAt + 1);
    let rest = hashAt < 0 ? s : s.slice(0, hashAt);
    const queryAt = rest.indexOf("?");
    let query = queryAt < 0 ? "" : rest.slice(queryAt + 1);
    let path = queryAt < 0 ? rest : rest.slice(0, queryAt);
    path = redactPathParams(redactValues(path, found, field), p, found, field);
    if (query) query = redactPairs(query, p, found, field);
    if (fragment) {
      // `#access_token=…&state=…`, or a hash route `#/cb?code=…`
      const q = fragment.search(/[?&=]/) >= 0 ? fragment.indexOf("?") : -1;
      if (q >= 0) fragment = redactPathParams(redactValues(fragment.slice(0, q), found, field), p, found, field) + "?" + redactPairs(fragment.slice(q + 1), p, found, field);
      else if (fragment.includes("=")) fragment = redactPairs(fragment, p, found, field);
      else fragment = redactValues(fragment, found, field);
    }
    return path + (queryAt < 0 ? "" : "?" + query) + (hashAt < 0 ? "" : "#" + fragment);
  }

  // A credential header that holds none: empty, or a scheme before `undefined`, `null`, `NaN` or
  // `[object Object]` (a token the app never set). No secret to hide, and often the bug itself.
  const NO_CREDENTIAL = /^\s*(?:[A-Za-z][\w-]*\s+)?(?:undefined|null|NaN|\[object Object\])?\s*$/;

  /** A copy of `headers` (name → value) with secret headers and secret values replaced. */
  function redactHeaders(headers, p = DEFAULT_POLICY, found = [], field = "headers") {
    const out = {};
    for (const [name, value] of Object.entries(headers || {})) {
      if (isSecretHeader(name, p) && typeof value === "string" && NO_CREDENTIAL.test(value)) {
        out[name] = value;
      } else if (isSecretHeader(name, p)) {
        out[name] = REDACTED;
        note(found, `${field}.${name}`);
      } else {
        out[name] = typeof value === "string" ? redactValues(value, found, `${field}.${name}`) : value;
      }
    }
    return out;
  }

  function looksLikeJson(s) {
    const t = s.trim();
    return (t.startsWith("{") && t.endsWith("}")) || (t.startsWith("[") && t.endsWith("]"));
  }

  function redactJsonValue(value, p, found, field, depth) {
    if (typeof value === "string") {
      if (value.length > 1 && looksLikeJson(value)) {
        try {
          return stringifyJson(redactJsonValue(parseJson(value), p, found, field, depth + 1));
        } catch {
          // not JSON after all
        }
      }
      return redactText(value, p, found, field);
    }
    if (typeof value === "number") {
      return Math.abs(value) >= 1e12 && redactValues(String(value), found, field) !== String(value) ? REDACTED : value;
    }
    if (!value || typeof value !== "object") return value;
    if (depth >= JSON_DEPTH) return redactText(stringifyJson(value), p, found, field);
    if (Array.isArray(value)) {
      // A [name, value] pair (a Map's entry as logged, a header list) holds a secret as a key does.
      if (value.length === 2 && typeof value[0] === "string" && holdsSecret(value[1]) && isSecretKey(value[0], p)) {
        note(found, `${field}.${value[0]}`);
        return [value[0], REDACTED];
      }
      return value.map((v) => redactJsonValue(v, p, found, field, depth + 1));
    }
    // {name, value} and {key, value} (a form's serializeArray(), a cookie, a settings row): the
    // value is the named one's.
    const named = typeof value.name === "string" ? value.name : typeof value.key === "string" ? value.key : null;
    const secretValue = named !== null && "value" in value && holdsSecret(value.value) && isSecretKey(named, p);
    const out = {};
    for (const key of Object.keys(value)) {
      const v = value[key];
      if ((holdsSecret(v) && isSecretKey(key, p)) || (secretValue && key === "value")) {
        out[key] = REDACTED;
        note(found, `${field}.${key === "value" && secretValue ? named : key}`);
      } else {
        out[key] = redactJsonValue(v, p, found, field, depth + 1);
      }
    }
    return out;
  }

  /** Whether a value under a secret name is one to hide (not null, a flag or an empty string). */
  function holdsSecret(v) {
    return v !== null && v !== undefined && typeof v !== "boolean" && v !== "";
  }

  /** A parsed JSON value with secret keys (any depth), JSON inside strings and value secrets replaced. */
  function redactJson(value, p = DEFAULT_POLICY, found = [], field = "json") {
    return redactJsonValue(value, p, found, field, 0);
  }

  // One part of a multipart body: its headers, a blank line, its value up to the next boundary.
  const MULTIPART_PART = /(name="([^"]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([\s\S]*?)(?=\r?\n--|$)/g;

  /** A body: JSON, form-encoded, multipart or text, recognised by `contentType` or by its shape. */
  function redactBody(text, p = DEFAULT_POLICY, found = [], field = "body", contentType = "") {
    if (typeof text !== "string" || text === "") return text;
    const type = String(contentType || "").toLowerCase();
    if (looksLikeJson(text)) {
      try {
        // Every change notes a name, so a body with nothing noted is given back as it came (its own
        // spacing and key order), without being written again.
        const mine = [];
        const redacted = redactJson(parseJson(text), p, mine, field);
        if (mine.length === 0) return text;
        for (const name of mine) note(found, name);
        return stringifyJson(redacted);
      } catch {
        // cut or not JSON: the text rules below still find `"key": "value"` pairs
      }
    }
    if (type.includes("multipart/") || /^--\S+\r?\nContent-Disposition: form-data/i.test(text)) {
      const parts = text.replace(MULTIPART_PART, (whole, head, name, value) => {
        if (value !== "" && isSecretKey(name, p, true)) {
          note(found, `${field}.${name}`);
          return head + REDACTED;
        }
        return head + redactText(value, p, found, field);
      });
      return parts;
    }
    if (type.includes("x-www-form-urlencoded") || /^[\w.%[\]-]+=[^\s]*(&[\w.%[\]-]+=[^\s]*)*$/.test(text)) {
      return redactPairs(text, p, found, field);
    }
    return redactText(text, p, found, field);
  }

  // A token the cut went through: letters, digits and what base64, JWTs and URL-encoding use.
  const CUT_TOKEN = /[A-Za-z0-9+/=_.~%-]{1,2048}$/;

  /**
   * `text` that was cut (at a cap) without the token the cut went through: a
   * secret split by the cut no longer matches its pattern, so its first part
   * would be stored as it is. A longer run (a base64 blob) is left alone. What
   * is left ends with a separator, so a second pass takes nothing more.
   */
  function dropCutToken(text, found, field) {
    const m = CUT_TOKEN.exec(text);
    if (!m || (m.index > 0 && CUT_TOKEN.test(text[m.index - 1]))) return text;
    note(found, `${field}:cut`);
    return text.slice(0, m.index);
  }

  // Which fields of each kind hold what. Bodies find their content type in a header field.
  // `cut`: a text field and the field that says it was cut.
  const ENTRY_FIELDS = {
    logs: {
      text: ["message", "stack", "location", "sample", "pageText"],
      url: ["url", "blockedURI", "resourceUrl"],
      lists: ["group"],
      cut: [
        ["message", "messageTruncated"],
        ["pageText", "pageTextTruncated"],
      ],
    },
    network_bodies: {
      url: ["url", "responseUrl"],
      headers: ["requestHeaders", "responseHeaders"],
      body: [
        ["requestBody", "requestHeaders"],
        ["responseBody", "responseHeaders"],
      ],
      text: ["error", "statusText", "pageText"],
      cut: [
        ["requestBody", "requestBodyTruncated"],
        ["responseBody", "responseBodyTruncated"],
        ["pageText", "pageTextTruncated"],
      ],
    },
    network_waterfall: { url: ["url", "finalUrl", "frameUrl"], text: ["error"] },
    websocket_events: { url: ["url"], body: [["data"]], text: ["reason", "protocol", "lastEventId"], cut: [["data", "truncated"]] },
    // A selector is the page's markup named (`div.pin-prompt:nth-of-type(2)`), no `key: value`
    // text: the value rules alone (a token in an id).
    actions: { url: ["url", "from", "action"], text: ["text", "value"], values: ["selector"] },
    tabs: { url: ["url"], text: ["title"] },
    vitals: { url: ["url"] },
  };

  /** `entry` of `kind` redacted in place; the names of what was redacted join `entry.redacted`. */
  function redactEntry(kind, entry, p = DEFAULT_POLICY) {
    const fields = ENTRY_FIELDS[kind];
    if (!fields || !entry || typeof entry !== "object") return entry;
    const found = Array.isArray(entry.redacted) ? entry.redacted.filter((n) => typeof n === "string") : [];
    for (const [f, flag] of fields.cut || []) {
      if (entry[flag] === true && typeof entry[f] === "string") entry[f] = dropCutToken(entry[f], found, f);
    }
    for (const f of fields.url || []) if (typeof entry[f] === "string") entry[f] = redactUrl(entry[f], p, found, f);
    for (const f of fields.text || []) if (typeof entry[f] === "string") entry[f] = redactText(entry[f], p, found, f);
    for (const f of fields.values || []) if (typeof entry[f] === "string") entry[f] = redactValues(entry[f], found, f);
    for (const f of fields.lists || []) {
      if (Array.isArray(entry[f])) entry[f] = entry[f].map((s) => (typeof s === "string" ? redactText(s, p, found, f) : s));
    }
    for (const f of fields.headers || []) {
      if (entry[f] && typeof entry[f] === "object") entry[f] = redactHeaders(entry[f], p, found, f);
    }
    for (const [f, headerField] of fields.body || []) {
      if (typeof entry[f] !== "string") continue;
      const headers = headerField && entry[headerField];
      const type = (headers && headers["content-type"]) || (f === "responseBody" && entry.contentType) || "";
      entry[f] = redactBody(entry[f], p, found, f, type);
    }
    if (found.length) entry.redacted = found;
    return entry;
  }

  const redact = {
    REDACTED,
    policy: secrets.policy,
    isSecretKey: (key, p = DEFAULT_POLICY, form = false) => isSecretKey(key, p, form),
    isSecretHeader: (name, p = DEFAULT_POLICY) => isSecretHeader(name, p),
    isSecretInput: secrets.isSecretInput,
    redactValues,
    redactText,
    redactUrl,
    redactHeaders,
    redactJson,
    redactBody,
    redactEntry,
  };
  if (typeof module === "object" && module.exports) module.exports = redact;
  root.__gasoline = Object.assign(root.__gasoline || {}, { redact });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoicmVkYWN0LmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vbGliL3JlZGFjdC5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
