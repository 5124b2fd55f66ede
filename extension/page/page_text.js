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
  const CELL_DEPTH = 8; // elements looked up from a text node for its table cell

  /** The table cell a text node is in, if any, within CELL_DEPTH elements. */
  function cellOf(node) {
    let el = node.parentNode;
    for (let depth = 0; el && depth < CELL_DEPTH; depth++, el = el.parentNode) {
      if (el.nodeName === "TD" || el.nodeName === "TH") return el;
    }
    return null;
  }

  /**
   * The visible text of `doc`, at most `cap` characters (read node by node: a large page costs
   * no more than the cap), and whether more was left; no layout is forced. A text node a line,
   * except that the cells of a table row make one line, `name: value`: an error page's tables
   * (Django's settings, request and local variables) pair a name with its value, and the pair
   * on one line is what redaction knows a secret by (`CSRF_COOKIE: '…'`).
   */
  function ofDocument(doc, cap) {
    const root = doc.body || doc.documentElement;
    if (!root || !createTreeWalker) return { text: "", truncated: false };
    const walker = apply(createTreeWalker, doc, [root, SHOW_TEXT]);
    let text = "";
    let lastCell = null;
    for (let node = apply(nextNode, walker, []); node; node = apply(nextNode, walker, [])) {
      if (node.parentNode && NOT_TEXT.has(node.parentNode.nodeName)) continue;
      const part = String(node.data).trim(); // a <pre>'s stack keeps its lines and indentation
      if (!part) continue;
      const cell = cellOf(node);
      const sameRow = cell && lastCell && cell.parentNode === lastCell.parentNode;
      const joint = !text ? "" : sameRow ? (cell === lastCell ? " " : ": ") : "\n";
      lastCell = cell;
      text += joint + part;
      if (text.length > cap) return { text: text.slice(0, cap), truncated: true };
    }
    return { text, truncated: false };
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
