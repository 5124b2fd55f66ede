// The call site of a console call: "url:line:col" of the first frame of a V8
// stack that is the page's, whatever the scheme its bundler or server uses
// (http(s), webpack-internal:///, webpack://, Vite's /@fs/…?v=…, blob:, file:,
// data:, a sourceURL name, <anonymous>), and eval'd code as "where eval was
// called (eval <anonymous>:line:col)". Frames of extensions (ours included)
// and frames without a position (native code) are passed over. Its callers
// too (callSites): the server tells library code from the page's own by the
// source maps, which the page does not have.
// Registry: reads nothing; adds callsite.
(function (root) {
  const DATA_CAP = 300; // a data: URL can be a whole script
  // Any other name is kept whole up to what the server resolves (a pnpm path inside a
  // webpack-internal:/// module name runs past 300 characters, and a cut name matches no module).
  const LOCATION_CAP = 2048;
  const POSITION = /:\d+:\d+$|:wasm-function\[\d+\]:0x[0-9a-f]+$/;
  const SKIP = /^(?:chrome-extension|moz-extension|gasoline|extensions?):/;

  /** The location part of one frame line ("    at fn (LOC)" or "    at LOC"), or undefined. */
  function locationOf(line) {
    let s = line.trim();
    if (!s.startsWith("at ")) return undefined;
    s = s.slice(3);
    // "async LOC": an anonymous async function resumed after an await.
    if (s.startsWith("async ") && !s.endsWith(")")) return s.slice(6);
    if (s.endsWith(")")) {
      // "fn (LOC)": LOC runs from the "(" matching the last ")"; names can hold parentheses too.
      let depth = 0;
      for (let i = s.length - 1; i >= 0; i--) {
        if (s[i] === ")") depth++;
        else if (s[i] === "(" && --depth === 0) {
          s = s.slice(i + 1, -1);
          break;
        }
      }
    }
    return s;
  }

  /** "url:line:col" of eval'd code's origin, the innermost frame that is not itself eval. */
  function evalOrigin(loc) {
    const re = /\(([^()]+)\)/g;
    for (let m; (m = re.exec(loc)); ) if (!m[1].startsWith("eval at ") && POSITION.test(m[1])) return m[1];
    return undefined;
  }

  function bounded(loc) {
    const cap = loc.startsWith("data:") ? DATA_CAP : LOCATION_CAP;
    if (loc.length <= cap) return loc;
    const pos = loc.match(POSITION)[0];
    return loc.slice(0, cap - pos.length - 1) + "…" + pos;
  }

  const EVAL_OF_NO_URL = /^(eval at [^(]*\()(?=:\d+:\d+\))/;

  /** The page's location in one frame line: a string, or null for a frame to pass over. */
  function frameLocation(line) {
    const found = locationOf(line);
    if (found === undefined) return null;
    // A script that has no URL (one a tool injected, DevTools' console evaluating code) is named
    // by nothing before its position: named as V8 names code of no script, `<anonymous>`.
    const loc = found[0] === ":" ? `<anonymous>${found}` : found.startsWith("eval at ") ? found.replace(EVAL_OF_NO_URL, "$1<anonymous>") : found;
    if (loc.startsWith("eval at ")) {
      // "eval at fn (ORIGIN), <anonymous>:1:9", nested for eval inside eval
      const origin = evalOrigin(loc);
      const at = loc.lastIndexOf("), ");
      const pos = at >= 0 ? loc.slice(at + 3) : "";
      if (!origin || SKIP.test(origin)) return null;
      return bounded(origin) + (POSITION.test(pos) ? ` (eval ${bounded(pos)})` : " (eval)");
    }
    if (!POSITION.test(loc) || SKIP.test(loc)) return null;
    return bounded(loc);
  }

  /**
   * "url:line:col" of the first `n` frames of `stack` (its first line is the message) outside
   * any extension: the call site, then its callers.
   */
  function callSites(stack, n) {
    const sites = [];
    if (typeof stack !== "string") return sites;
    const lines = stack.split("\n");
    for (let i = 1; i < lines.length && sites.length < n; i++) {
      const where = frameLocation(lines[i]);
      if (where) sites.push(where);
    }
    return sites;
  }

  /** "url:line:col" of the first frame of `stack` (its first line is the message) outside any extension. */
  const callSite = (stack) => callSites(stack, 1)[0];

  /** The script a location ("url:line:col", maybe "(eval …)" after it) is in. */
  const scriptOf = (loc) => loc.replace(/ \(eval.*$/, "").replace(POSITION, "");

  /**
   * The call site of `stack`, its next `near` callers, then the first frame of each script met
   * further down that no frame before was in, up to `further` of them. A framework between the
   * page's code and the call (zone.js and Angular's HTTP client put some 60 frames there) leaves
   * the page's own frame far down, past any fixed count; the first frame of the page's script is
   * the page's line that started it all. Which of them is library code the source maps tell.
   */
  function reaching(stack, near, further) {
    const sites = callSites(stack, Infinity);
    const kept = sites.slice(0, 1 + near);
    const seen = new Set(kept.map(scriptOf));
    for (let i = kept.length, more = 0; i < sites.length && more < further; i++) {
      const script = scriptOf(sites[i]);
      if (seen.has(script)) continue;
      seen.add(script);
      kept.push(sites[i]);
      more++;
    }
    return kept;
  }

  const callsite = { callSite, callSites, reaching, frameLocation };
  if (typeof module === "object" && module.exports) module.exports = callsite;
  root.__gasoline = Object.assign(root.__gasoline || {}, { callsite });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiY2FsbHNpdGUuanMiLCJzb3VyY2VzIjpbImdhc29saW5lLWV4dGVuc2lvbjovLy9saWIvY2FsbHNpdGUuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
