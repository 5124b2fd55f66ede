// The text of an HTML page as a person reads it, for an error page: the
// document itself when the server answered it with an error status
// (resources.js), or the HTML a fetch or an XHR got with one (bodies.js). A
// dev server's or a framework's error page (Django's, Rails', Laravel's, Vite's
// SSR 500) holds the server's error and stack in a few kilobytes of text, under
// as many of styles and scripts: the text is what an agent can read.
// Registry: reads core; adds pageText.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.core || G.pageText) return;
  const { apply } = G.core;
  // Taken before any page script runs: the page may replace them later.
  const NativeDOMParser = typeof DOMParser === "function" ? DOMParser : null;
  const parseFromString = NativeDOMParser ? NativeDOMParser.prototype.parseFromString : null;
  const createTreeWalker = typeof Document === "function" ? Document.prototype.createTreeWalker : null;
  const nextNode = typeof TreeWalker === "function" ? TreeWalker.prototype.nextNode : null;
  const SHOW_TEXT = 4; // NodeFilter.SHOW_TEXT

  const NOT_TEXT = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);
  // Elements that flow within a line: their text continues the line of the text before it in the
  // same block (a debug page's `File <cite>"app.py"</cite>, line <em>82</em>` is one line).
  const INLINE = new Set([
    "A", "ABBR", "B", "BDI", "BDO", "CITE", "CODE", "DATA", "DFN", "EM", "FONT", "I", "KBD", "LABEL", "MARK", "Q", "S",
    "SAMP", "SMALL", "SPAN", "STRONG", "SUB", "SUP", "TIME", "TT", "U", "VAR",
  ]);
  // Elements whose text keeps its spaces and lines (a stack in a <pre>, source lines).
  const PRESERVED = new Set(["PRE", "TEXTAREA", "LISTING", "XMP", "PLAINTEXT"]);
  const DEPTH = 8; // elements looked up from a text node for its table cell, its block

  /** The table cell a text node is in, if any, within DEPTH elements. */
  function cellOf(node) {
    let el = node.parentNode;
    for (let depth = 0; el && depth < DEPTH; depth++, el = el.parentNode) {
      if (el.nodeName === "TD" || el.nodeName === "TH") return el;
    }
    return null;
  }

  /** The element a text node's line belongs to: its nearest ancestor that is not inline. */
  function blockOf(node) {
    let el = node.parentNode;
    for (let depth = 0; el && depth < DEPTH && INLINE.has(el.nodeName); depth++) el = el.parentNode;
    return el;
  }

  /**
   * The visible text of `doc`, at most `cap` characters (read node by node: a large page costs
   * no more than the cap), and whether more was left; no layout is forced. A block a line, its
   * inline elements' text in it, spaces collapsed as a browser shows them (a <pre>'s kept), except
   * that the cells of a table row make one line, `name: value`: an error page's tables (Django's
   * settings, request and local variables) pair a name with its value, and the pair on one line
   * is what redaction knows a secret by (`CSRF_COOKIE: '…'`).
   */
  function ofDocument(doc, cap) {
    const root = doc.body || doc.documentElement;
    if (!root || !createTreeWalker) return { text: "", truncated: false };
    const walker = apply(createTreeWalker, doc, [root, SHOW_TEXT]);
    let text = "";
    let lastCell = null;
    let lastBlock = null;
    for (let node = apply(nextNode, walker, []); node; node = apply(nextNode, walker, [])) {
      if (node.parentNode && NOT_TEXT.has(node.parentNode.nodeName)) continue;
      const block = blockOf(node);
      const kept = block !== null && PRESERVED.has(block.nodeName);
      const raw = String(node.data);
      const cell = cellOf(node);
      if (text && !cell && block !== null && block === lastBlock) {
        // The same line goes on: a <pre>'s text as written, else with its spaces collapsed.
        const more = kept ? raw : raw.replace(/\s+/g, " ");
        text += text.endsWith(" ") && more.startsWith(" ") ? more.slice(1) : more;
      } else {
        // A line's end is where its spaces end, for what its next inline element's text adds; a
        // <pre>'s stack keeps its lines and indentation.
        const part = (kept ? raw : raw.replace(/\s+/g, " ")).trimStart();
        if (!part) continue;
        const sameRow = cell && lastCell && cell.parentNode === lastCell.parentNode;
        const joint = !text ? "" : sameRow ? (cell === lastCell ? " " : ": ") : "\n";
        text = text.trimEnd() + joint + part;
      }
      lastCell = cell;
      lastBlock = block;
      if (text.length > cap) return { text: text.slice(0, cap), truncated: true };
    }
    return { text: text.trimEnd(), truncated: false };
  }

  /**
   * The text of `html` (a response's body) as ofDocument reads a page, or null when it cannot be
   * parsed. The parsed document is inert: none of its scripts run, nothing it names is loaded.
   */
  function ofHtml(html, cap) {
    if (!parseFromString) return null;
    try {
      return ofDocument(apply(parseFromString, new NativeDOMParser(), [html, "text/html"]), cap);
    } catch {
      return null;
    }
  }

  G.pageText = { ofDocument, ofHtml };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoicGFnZV90ZXh0LmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9wYWdlX3RleHQuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
