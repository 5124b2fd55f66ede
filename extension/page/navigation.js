// The document's load or reload, and navigation inside the page (pushState,
// replaceState, popstate, hashchange) → `actions` of type "navigate", and the
// tab's url and title → `tabs`.
// Other sources hear of each one through `G.routes.onChange` (vitals.js starts
// a new soft page on a route change).
// Registry: reads sources, core, outbox, requests; adds routes, sources.navigation.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;
  const routeListeners = [];
  G.routes = {
    /** `fn({how, from, to})` after every navigation inside the page. */
    onChange(fn) {
      routeListeners.push(fn);
    },
  };

  G.sources.navigation = function install({ core, outbox, requests }) {
    const { apply, fill, listen } = core;
    let lastUrl = location.href;

    // The tab's url and title as last sent: asked again at DOMContentLoaded and load, it is sent
    // only when it changed (a title set by a script, a route), not once per asking.
    let lastTab = "";
    function reportTab() {
      outbox.emit("tabs", () => {
        const tab = { url: location.href, title: document.title || "" };
        const key = `${tab.url}\n${tab.title}`;
        if (key === lastTab) return null;
        lastTab = key;
        return tab;
      });
    }

    function navigated(how) {
      const from = lastUrl;
      const url = location.href;
      lastUrl = url;
      core.pageUrl.left(from);
      outbox.emit("actions", () => ({ type: "navigate", how, url, from }));
      reportTab();
      for (const fn of routeListeners) {
        try {
          fn({ how, from, to: url });
        } catch {
          // one listener failing must not stop the others
        }
      }
    }

    for (const name of ["pushState", "replaceState"]) {
      fill(History.prototype, name, (original) => ({
        [name]() {
          const result = apply(original, this, arguments);
          try {
            // A replaceState that keeps the URL only writes the entry's state (routers keep scroll
            // positions there, and SvelteKit and Next write it at every load): no navigation.
            if (name === "pushState" || location.href !== lastUrl) navigated(name);
          } catch {
            // ignore
          }
          return result;
        },
      })[name]);
    }
    // A fragment navigation (a `#` link, `location.hash = …`, back across one) fires popstate, then
    // hashchange: one navigation, named for what changed.
    const withoutHash = (url) => {
      const at = url.indexOf("#");
      return at < 0 ? url : url.slice(0, at);
    };
    listen(window, "popstate", () => {
      const url = location.href;
      const hashOnly = url !== lastUrl && withoutHash(url) === withoutHash(lastUrl);
      navigated(hashOnly ? "hashchange" : "popstate");
    });
    listen(window, "hashchange", () => location.href !== lastUrl && navigated("hashchange"));

    // The document's own navigation: a reload, or a step back or forward, says so (the browser's
    // navigation entry knows it from the start), so an agent can tell "reloaded" from "opened".
    const entry = requests.navigationEntry();
    const how = entry && (entry.type === "reload" || entry.type === "back_forward") ? entry.type : "load";
    // Dated when the navigation began (the document's time origin), not when this script ran: the
    // document's own row and its first scripts, timed from that origin, come after it, so "since
    // the last load" holds them.
    const began = Math.floor(performance.timeOrigin);
    outbox.emit("actions", () => ({ type: "navigate", how, url: lastUrl, ts: began }));
    reportTab();
    // Back or forward to this document kept whole in the back-forward cache: no script of the page
    // runs again, but the tab shows it anew.
    listen(window, "pageshow", (e) => {
      if (!e.persisted) return;
      lastUrl = location.href;
      outbox.emit("actions", () => ({ type: "navigate", how: "back_forward", url: lastUrl }));
      reportTab();
    });
    listen(document, "DOMContentLoaded", reportTab);
    listen(window, "load", reportTab);
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoibmF2aWdhdGlvbi5qcyIsInNvdXJjZXMiOlsiZ2Fzb2xpbmUtZXh0ZW5zaW9uOi8vL3BhZ2UvbmF2aWdhdGlvbi5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
