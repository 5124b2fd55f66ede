// The page-side scripts, registered with chrome.scripting for the capture
// scope only (there are no static content scripts: a page outside the scope
// gets nothing of ours, in any frame). Two registrations: the page-world files
// (MAIN world, in the order below, which is the one declared list of what the
// page side loads) and the relay (isolated world), both at document_start in
// every frame of a matching origin, about:blank and srcdoc frames included.
//
// Chrome applies a change from the next navigation. Scripts registered
// dynamically did not survive a browser restart for an unpacked extension on
// Chromium 156, so the worker calls `sync` at every start; when what is
// registered already equals what is wanted it changes nothing (a navigation
// during a needless unregister/register would get no script).
/**
 * The page-world files, in load order: helpers, then the core, then one file per
 * source, start.js last. They share globalThis.__gasoline: each file's
 * "Registry:" line says what it reads there, which files before it added
 * (test/unit/registry.test.mjs).
 */
export const PAGE_FILES = Object.freeze([
  "lib/limits.js", "lib/kinds.js", "lib/causes.js", "lib/serialize.js", "lib/snapshot.js", "lib/format.js", "lib/table.js",
  "lib/callsite.js", "lib/secrets.js", "lib/redact.js", "lib/selector.js", "lib/inp.js",
  "page/core.js", "page/channel.js", "page/outbox.js", "page/page_text.js", "page/bodies.js", "page/app_failures.js", "page/rpc.js", "page/engine_io.js", "page/consumed.js", "page/requests.js",
  "page/console.js", "page/errors.js", "page/fetch.js", "page/xhr.js", "page/websocket.js",
  "page/eventsource.js", "page/workers.js", "page/beacon.js", "page/csp.js", "page/resources.js",
  "page/actions.js", "page/navigation.js", "page/connectivity.js", "page/timing.js", "page/vitals.js",
  "page/start.js",
]);
export const RELAY_FILES = Object.freeze(["lib/scope.js", "content/relay.js"]);
const PAGE_ID = "gasoline-page";
const RELAY_ID = "gasoline-relay";

/** The two registrations for `matches` (minus `excludeMatches`). */
export function wanted(matches, excludeMatches) {
  const common = {
    matches: [...matches],
    excludeMatches: [...excludeMatches],
    runAt: "document_start",
    allFrames: true,
    matchOriginAsFallback: true,
    persistAcrossSessions: true,
  };
  return [
    { id: PAGE_ID, js: [...PAGE_FILES], world: "MAIN", ...common },
    { id: RELAY_ID, js: [...RELAY_FILES], world: "ISOLATED", ...common },
  ];
}

/** Whether a registration Chrome reports is the one wanted (fields Chrome may leave out count as their defaults). */
export function same(have, want) {
  const list = (v) => JSON.stringify([...(v || [])].sort());
  return (
    have &&
    list(have.matches) === list(want.matches) &&
    list(have.excludeMatches) === list(want.excludeMatches) &&
    JSON.stringify(have.js || []) === JSON.stringify(want.js) &&
    (have.world || "ISOLATED") === want.world &&
    have.allFrames === true &&
    have.matchOriginAsFallback === true &&
    have.runAt === "document_start"
  );
}

/**
 * Makes Chrome's registrations what the scope says: none while `matches` is
 * empty (paused), else both. Calls are chained, so the last state asked for wins.
 */
export function Registrar(scripting) {
  let chain = Promise.resolve();
  return {
    sync(matches, excludeMatches) {
      const run = chain.then(() => apply(scripting, matches, excludeMatches));
      chain = run.catch(() => {});
      return run;
    },
  };
}

async function apply(scripting, matches, excludeMatches) {
  const ids = [PAGE_ID, RELAY_ID];
  const have = await scripting.getRegisteredContentScripts({ ids });
  if (matches.length === 0) {
    if (have.length) await scripting.unregisterContentScripts({ ids: have.map((s) => s.id) });
    return;
  }
  const want = wanted(matches, excludeMatches);
  if (want.every((w) => same(have.find((h) => h.id === w.id), w))) return;
  const present = new Set(have.map((h) => h.id));
  const update = want.filter((w) => present.has(w.id));
  const add = want.filter((w) => !present.has(w.id));
  if (update.length) await scripting.updateContentScripts(update);
  if (add.length) await scripting.registerContentScripts(add);
}
