// Where capture runs: the local development origins by default, the sites the
// person turned on, never the Gasoline server's own origin, nothing while
// paused. Pure (no chrome.* call), shared by the service worker, the popup
// and the options page, and unit-tested.
//
// Scope is written as Chrome match patterns (the form content-script
// registration and host permissions take): `scheme://host/*`. A pattern
// without a port matches every port; `*.` before a host matches its
// subdomains. Chrome's patterns cannot say "127.0.0.0/8", so only 127.0.0.1
// is a default.
// Registry: reads nothing; adds scope.
(function (root) {
  /** Local development origins, any port, http and https: what Gasoline captures with no choice made. */
  const DEFAULT_PATTERNS = Object.freeze(
    ["localhost", "*.localhost", "127.0.0.1", "[::1]"].flatMap((host) => [`http://${host}/*`, `https://${host}/*`]),
  );

  /** Hostnames a server URL may use: the server is on this machine. */
  const LOOPBACK = ["127.0.0.1", "localhost", "[::1]"];

  /** The URL parsed, or null (URL throws on anything odd). */
  function parse(url) {
    try {
      return new URL(String(url));
    } catch {
      return null;
    }
  }

  /** "https://shop.example:8443/a?b" → "https://shop.example/*" (every port of the site); null for non-http(s). */
  function sitePattern(url) {
    const u = parse(url);
    // A host is a name or an address: never a wildcard ("https://*/*" parses with hostname "*").
    if (!u || (u.protocol !== "http:" && u.protocol !== "https:") || !u.hostname || u.hostname.includes("*")) return null;
    return `${u.protocol}//${u.hostname}/*`;
  }

  /** "https://shop.example/*" → "shop.example", what a person reads. */
  function patternHost(pattern) {
    const m = /^[a-z*]+:\/\/([^/]+)\//.exec(String(pattern));
    return m ? m[1] : String(pattern);
  }

  /** Whether `url` matches one Chrome match pattern of the forms above (and `<all_urls>`). */
  function matches(pattern, url) {
    const u = typeof url === "string" ? parse(url) : url;
    if (!u) return false;
    if (u.protocol !== "http:" && u.protocol !== "https:") return false;
    if (pattern === "<all_urls>") return true;
    const m = /^(\*|https?):\/\/(\*|\*\.[^/:]+|\[[^\]]+\]|[^/:]+)(?::(\d+|\*))?\/(.*)$/.exec(String(pattern));
    if (!m) return false;
    const [, scheme, host, port, path] = m;
    if (scheme !== "*" && `${scheme}:` !== u.protocol) return false;
    if (port !== undefined && port !== "*" && port !== (u.port || (u.protocol === "https:" ? "443" : "80"))) return false;
    const hostname = u.hostname.toLowerCase();
    if (host !== "*") {
      if (host.startsWith("*.")) {
        const base = host.slice(2).toLowerCase();
        if (hostname !== base && !hostname.endsWith(`.${base}`)) return false;
      } else if (hostname !== host.toLowerCase()) return false;
    }
    if (path === "*") return true;
    const re = new RegExp(`^/${path.split("*").map(escapeRe).join(".*")}$`);
    return re.test(u.pathname + u.search);
  }

  function escapeRe(s) {
    return s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }

  /**
   * The server's own origin on every loopback name, as exclusion patterns:
   * "http://127.0.0.1:7890" → ["http://127.0.0.1:7890/*", "http://localhost:7890/*", "http://[::1]:7890/*"].
   */
  function serverExclusions(serverUrl) {
    const u = parse(serverUrl);
    if (!u) return [];
    const port = u.port || (u.protocol === "https:" ? "443" : "80");
    const hosts = LOOPBACK.includes(u.hostname) ? LOOPBACK : [u.hostname];
    return hosts.map((h) => `${u.protocol}//${h}:${port}/*`);
  }

  /** The capture state kept in chrome.storage.local under "scope", completed with defaults. */
  function scopeWithDefaults(stored) {
    const s = stored && typeof stored === "object" ? stored : {};
    const sites = Array.isArray(s.sites) ? s.sites.map(String).filter((p) => sitePattern(p.replace("/*", "/")) === p) : [];
    return { paused: s.paused === true, sites: [...new Set(sites)] };
  }

  /**
   * What a page at `url` gets: "default" (a local development origin), "site"
   * (a site turned on), "server" (Gasoline's own origin), "paused", or "off".
   */
  function scopeOf(url, scope, serverUrl) {
    const u = parse(url);
    if (!u || (u.protocol !== "http:" && u.protocol !== "https:")) return "off";
    if (serverExclusions(serverUrl).some((p) => matches(p, u))) return "server";
    const where = DEFAULT_PATTERNS.some((p) => matches(p, u)) ? "default" : scope.sites.some((p) => matches(p, u)) ? "site" : "off";
    if (where !== "off" && scope.paused) return "paused";
    return where;
  }

  /** Whether a page at `url` is captured now. */
  function inScope(url, scope, serverUrl) {
    const where = scopeOf(url, scope, serverUrl);
    return where === "default" || where === "site";
  }

  /** Every pattern capture runs on (when not paused). */
  function patterns(scope) {
    return [...DEFAULT_PATTERNS, ...scope.sites];
  }

  /** Whether `next` captures something `before` did not: capture resumed, or a pattern added. */
  function widens(before, next) {
    if (next.paused) return false;
    if (before.paused) return true;
    const had = new Set(patterns(before));
    return patterns(next).some((p) => !had.has(p));
  }

  const scope = {
    DEFAULT_PATTERNS,
    widens,
    sitePattern,
    patternHost,
    matches,
    serverExclusions,
    scopeWithDefaults,
    scopeOf,
    inScope,
    patterns,
  };
  if (typeof module === "object" && module.exports) module.exports = scope;
  root.__gasoline = Object.assign(root.__gasoline || {}, { scope });
})(globalThis);
