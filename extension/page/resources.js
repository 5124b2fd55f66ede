// Elements that failed to load (img, script, link, video, audio, source,
// track, iframe) → `logs` with `source: "resource"`, level error, a message
// like "Failed to load image: <url>", the element's `tag`, its `selector` and
// `resourceUrl`. Their `error` events do not bubble, so they are caught on
// window in the capture phase (before the page's own handlers, which often
// remove the broken element: the selector is taken then). Elements that are
// not in the document (`new Image()`), or in a shadow root, are not seen. The
// browser's side of the same request (status, net::ERR_…) is its
// network_waterfall row. The document itself answered with an error status (a
// server's 500 page, a 404, a form shown again with 422) is one too: "The page
// answered 500: <url>", so that asking for errors finds it, with the page's text
// (`pageText`, its first 16 KiB, scripts and styles left out: page_text.js): a
// dev server's error page holds the server's error and stack, which nothing
// else captures.
// Registry: reads sources, core, outbox, selector, requests, limits, pageText; adds sources.resources.
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

  G.sources.resources = function install({ core, outbox, selector, requests, limits, pageText }) {
    const { listen } = core;
    const entry = requests.navigationEntry();
    const status = entry && typeof entry.responseStatus === "number" ? entry.responseStatus : 0;
    if (status >= 400) {
      const url = location.href;
      const what = window === window.top ? "The page" : "The frame";
      // Once the document is parsed, so that its text is there (an error page is small and rare).
      const failed = () =>
        outbox.emit("logs", () => {
          const page = pageText.ofDocument(document, limits.BODY_CAP);
          // A React Server Components page (Next.js's dev 500) shows next to nothing ("This page
          // couldn't load"): its server's error is in its Flight data, said after what it shows.
          // A Nuxt page's likewise, in its payload (`#__NUXT_DATA__`).
          try {
            const nuxt = document.getElementById("__NUXT_DATA__");
            const server = pageText.flightError(globalThis.__next_f) || (nuxt ? pageText.nuxtError(nuxt.textContent) : "");
            if (server) page.text = page.text ? `${page.text}\n${server}` : server;
          } catch {
            // a page's getter that throws: what it shows alone
          }
          // An error page's title most often names the error ("ValueError at /crash/").
          const title = String(document.title || "").trim().slice(0, 200);
          return {
            level: "error",
            message: `${what} answered ${status}: ${url}${title ? ` (${title})` : ""}`,
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
