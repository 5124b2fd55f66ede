// The browser losing or getting back its network (`offline` and `online`, as
// Chrome fires them when the machine's connection goes, or DevTools' Network
// panel is set to Offline) → `actions` of type "offline" and "online", so that
// requests failing with net::ERR_INTERNET_DISCONNECTED have their reason beside
// them (an error's context names the last action). A page loaded while the
// browser is offline says so once. The top frame's only: every frame of the tab
// hears the same change.
// Registry: reads sources, core, outbox; adds sources.connectivity.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.connectivity = function install({ core, outbox }) {
    if (window !== window.top) return;
    const { listen } = core;
    const changed = (type) => () => outbox.emit("actions", () => ({ type, url: location.href }));
    listen(window, "offline", changed("offline"));
    listen(window, "online", changed("online"));
    if (navigator.onLine === false) changed("offline")();
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiY29ubmVjdGl2aXR5LmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9jb25uZWN0aXZpdHkuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
