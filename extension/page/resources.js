// Elements that failed to load (img, script, link, video, audio, source,
// track, iframe) → `logs` with `source: "resource"`, level error, a message
// like "Failed to load image: <url>", the element's `tag`, its `selector` and
// `resourceUrl`. Their `error` events do not bubble, so they are caught on
// window in the capture phase (before the page's own handlers, which often
// remove the broken element: the selector is taken then). Elements that are
// not in the document (`new Image()`), or in a shadow root, are not seen. The
// browser's side of the same request (status, net::ERR_…) is its
// network_waterfall row. The document itself answered with an error status (a
// server's 500 page, a 404) is one too: "Failed to load the page: <url>
// answered 500", so that asking for errors finds it, with the page's text
// (`pageText`, its first 16 KiB, scripts and styles left out): a dev server's
// error page holds the server's error and stack, which nothing else captures.
// Registry: reads sources, core, outbox, selector, requests, limits; adds sources.resources.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  const KIND = { IMG: "image", SCRIPT: "script", VIDEO: "video", AUDIO: "audio", SOURCE: "media source", TRACK: "text track", IFRAME: "frame" };
  const MEDIA_ERRORS = [undefined, "MEDIA_ERR_ABORTED", "MEDIA_ERR_NETWORK", "MEDIA_ERR_DECODE", "MEDIA_ERR_SRC_NOT_SUPPORTED"];

  /** What failed: "image", "stylesheet", "link rel=preload"…, or undefined for an element we do not report. */
  function kindOf(el) {
    if (el.tagName !== "LINK") return KIND[el.tagName];
    const rel = String(el.rel || "").toLowerCase();
    if (/\bstylesheet\b/.test(rel)) return "stylesheet";
    if (/\bicon\b/.test(rel)) return "icon";
    return `link rel=${rel || "(none)"}`;
  }

  /** The URL the element tried (properties give it absolute; none of them forces layout). */
  function urlOf(el) {
    switch (el.tagName) {
      case "LINK":
        return el.href;
      case "IMG":
      case "VIDEO":
      case "AUDIO":
        return el.currentSrc || el.src;
      default:
        return el.src;
    }
  }

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
   * The document's visible text, at most `cap` characters (read node by node: a large page costs
   * no more than the cap), and whether more was left; no layout is forced. A text node a line,
   * except that the cells of a table row make one line, `name: value`: an error page's tables
   * (Django's settings, request and local variables) pair a name with its value, and the pair
   * on one line is what redaction knows a secret by (`CSRF_COOKIE: '…'`).
   */
  function pageText(cap) {
    const root = document.body || document.documentElement;
    if (!root) return { text: "", truncated: false };
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let text = "";
    let lastCell = null;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
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

  G.sources.resources = function install({ core, outbox, selector, requests, limits }) {
    const { listen } = core;
    const entry = requests.navigationEntry();
    const status = entry && typeof entry.responseStatus === "number" ? entry.responseStatus : 0;
    if (status >= 400) {
      const url = location.href;
      const what = window === window.top ? "the page" : "the frame";
      // Once the document is parsed, so that its text is there (an error page is small and rare).
      const failed = () =>
        outbox.emit("logs", () => {
          const page = pageText(limits.BODY_CAP);
          // An error page's title most often names the error ("ValueError at /crash/").
          const title = String(document.title || "").trim().slice(0, 200);
          return {
            level: "error",
            message: `Failed to load ${what}: ${url} answered ${status}${title ? ` (${title})` : ""}`,
            source: "resource",
            url,
            resourceUrl: url,
            tag: "document",
            pageText: page.text || undefined,
            pageTextTruncated: page.truncated || undefined,
          };
        }, true);
      if (document.readyState === "loading") listen(document, "DOMContentLoaded", failed, { once: true });
      else failed();
    }
    listen(
      window,
      "error",
      (e) => {
        try {
          const el = e.target;
          if (!el || el.nodeType !== 1 || typeof el.tagName !== "string") return; // script errors are ErrorEvents on window
          const what = kindOf(el);
          if (!what) return;
          const resourceUrl = String(urlOf(el) || "");
          const tag = el.tagName.toLowerCase();
          const where = selector.cssSelector(el);
          const mediaError = el.error && typeof el.error.code === "number" ? el.error : null;
          const reason = mediaError ? mediaError.message || MEDIA_ERRORS[mediaError.code] : undefined;
          const url = location.href;
          if (resourceUrl) requests.elementFailed(resourceUrl, tag);
          outbox.emit("logs", () => ({
            level: "error",
            message: `Failed to load ${what}: ${resourceUrl || "(no URL)"}`,
            source: "resource",
            url,
            resourceUrl: resourceUrl || undefined,
            tag,
            selector: where,
            reason,
          }), true);
        } catch {
          // ignore
        }
      },
      true,
    );
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoicmVzb3VyY2VzLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9yZXNvdXJjZXMuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
