// The page world's small core, shared by every source in page/: the
// built-ins taken before any page script runs (a page may replace them
// later), `fill` to wrap a function so that it still looks native,
// `wrapConstructor` to watch every instance of a built-in class (WebSocket,
// EventSource) without the page seeing a difference, and `listen` to add
// listeners the page cannot see through a patched addEventListener, and
// `later`, many deadlines on one timer, and `pageUrl`, which page URL an event
// happened on. Loaded after lib/ and before every other page/ file.
// Registry: reads nothing; adds core, sources.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || G.core) return;

  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const addEventListener = EventTarget.prototype.addEventListener;
  const removeEventListener = EventTarget.prototype.removeEventListener;
  const nativeToString = Function.prototype.toString;

  // Where our scripts are (chrome-extension://<id>/), read from a stack of ours. An error the page
  // gets through a wrapper of ours (a fetch that failed, JSON that does not parse) would show our
  // wrapper's frame above its own: error trackers drop or blame errors with extension frames, so
  // `clean` cuts our frames out of the error's stack first. Lines kept as they were otherwise.
  const ours = (() => {
    try {
      const m = /chrome-extension:\/\/[a-z]{32}\//.exec(new Error().stack);
      return m ? m[0] : null;
    } catch {
      return null;
    }
  })();
  const { split, includes } = String.prototype;
  const { filter, join } = Array.prototype;

  /** `error` with the frames of our scripts cut out of its stack; never throws. */
  function clean(error) {
    try {
      if (!ours || !error || typeof error !== "object") return error;
      const stack = error.stack;
      if (typeof stack !== "string" || !apply(includes, stack, [ours])) return error;
      const lines = apply(filter, apply(split, stack, ["\n"]), [(line) => !apply(includes, line, [ours])]);
      error.stack = apply(join, lines, ["\n"]);
    } catch {
      // a frozen error or an odd stack: leave it
    }
    return error;
  }

  /** `original` called from a wrapper of ours; an error it throws reaches the page without our frame. */
  function invoke(original, self, args) {
    try {
      return apply(original, self, args);
    } catch (error) {
      throw clean(error);
    }
  }

  // WeakMap's and WeakSet's methods, taken now: the maps and sets our wrappers keep are used
  // through these, so that a page replacing WeakMap.prototype.get (say) later breaks nothing of
  // ours, not even Function.prototype.toString.
  const NativeWeakMap = WeakMap;
  const NativeWeakSet = WeakSet;
  const { get: mapGet, set: mapSet, has: mapHas, delete: mapDelete } = WeakMap.prototype;
  const { add: setAdd, has: setHas, delete: setDelete } = WeakSet.prototype;

  /** A WeakMap of ours (get, set, has, delete), out of the page's reach. */
  function weakMap() {
    const map = new NativeWeakMap();
    return {
      get: (key) => apply(mapGet, map, [key]),
      set: (key, value) => apply(mapSet, map, [key, value]),
      has: (key) => apply(mapHas, map, [key]),
      delete: (key) => apply(mapDelete, map, [key]),
    };
  }

  /** A WeakSet of ours (add, has, delete), out of the page's reach. */
  function weakSet() {
    const set = new NativeWeakSet();
    return {
      add: (value) => apply(setAdd, set, [value]),
      has: (value) => apply(setHas, set, [value]),
      delete: (value) => apply(setDelete, set, [value]),
    };
  }

  // wrapper → original: Function.prototype.toString answers for a wrapper with
  // its original's "function fetch() { [native code] }".
  const originals = weakMap();
  const toString = {
    toString() {
      // toString of a non-function: the built-in's TypeError, without our frame.
      return invoke(nativeToString, originals.get(this) || this, arguments);
    },
  }.toString;
  originals.set(toString, nativeToString);
  defineProperty(Function.prototype, "toString", { ...getOwnPropertyDescriptor(Function.prototype, "toString"), value: toString });

  /** Makes `wrapper` answer like `original` to toString(), name and length. */
  function disguise(wrapper, original) {
    originals.set(wrapper, original);
    for (const key of ["name", "length"]) {
      const d = getOwnPropertyDescriptor(original, key);
      if (d) defineProperty(wrapper, key, d);
    }
    return wrapper;
  }

  /**
   * Replaces `owner[name]` by `make(original)`, keeping the property's
   * attributes and a native-looking wrapper. Wrappers made with method
   * syntax have no `prototype` and cannot be `new`ed, like native methods.
   */
  function fill(owner, name, make) {
    const d = getOwnPropertyDescriptor(owner, name);
    if (!d || typeof d.value !== "function") return null;
    const wrapper = disguise(make(d.value), d.value);
    defineProperty(owner, name, { ...d, value: wrapper });
    return d.value;
  }

  /**
   * Replaces the global class `name` by a function that builds the original
   * and hands each new instance to `watch`, with the arguments it was built with. Nothing the page can check
   * changes: `x.constructor === Name`, `instanceof`, the prototype (shared,
   * untouched but for its `constructor`), static members, subclasses, and
   * toString/name/length are the original's. Calling it without `new` throws
   * as the original does. Returns the original class, or null.
   */
  function wrapConstructor(name, watch) {
    const Original = globalThis[name];
    if (typeof Original !== "function" || !Original.prototype) return null;
    const Wrapper = function () {
      if (!new.target) return apply(Original, this, arguments); // throws as the original does
      const instance = construct(Original, arguments, new.target === Wrapper ? Original : new.target);
      try {
        watch(instance, arguments);
      } catch {
        // never disturb the page
      }
      return instance;
    };
    disguise(Wrapper, Original);
    Object.setPrototypeOf(Wrapper, Object.getPrototypeOf(Original));
    for (const key of Reflect.ownKeys(Original)) {
      if (key === "prototype" || key === "name" || key === "length") continue;
      defineProperty(Wrapper, key, getOwnPropertyDescriptor(Original, key));
    }
    defineProperty(Wrapper, "prototype", { value: Original.prototype, writable: false });
    const ctor = getOwnPropertyDescriptor(Original.prototype, "constructor");
    defineProperty(Original.prototype, "constructor", { ...ctor, value: Wrapper });
    defineProperty(globalThis, name, { ...getOwnPropertyDescriptor(globalThis, name), value: Wrapper });
    return Original;
  }

  // Connection ids, unique in the page across WebSocket and EventSource.
  const idPrefix = Math.random().toString(36).slice(2, 8);
  let connections = 0;
  const connectionId = () => `${idPrefix}-${++connections}`;

  /** `fn` that never throws at the page. */
  function guard(fn) {
    return function () {
      try {
        return apply(fn, this, arguments);
      } catch {
        return undefined;
      }
    };
  }

  // Every callback of ours the browser calls (listeners, timers, idle callbacks) is guarded: a
  // page that replaced a built-in our code uses (Object.keys, Array.prototype.push...) loses
  // entries, never gets our exception as one of its own uncaught errors.
  const guarded = weakMap(); // a listener of ours → its guarded form, for unlisten

  /** addEventListener with the original, so page patches of it never see ours; `fn` guarded. */
  function listen(target, type, fn, options) {
    let safe = guarded.get(fn);
    if (!safe) {
      safe = guard(fn);
      guarded.set(fn, safe);
    }
    apply(addEventListener, target, [type, safe, options]);
  }
  function unlisten(target, type, fn, options) {
    apply(removeEventListener, target, [type, guarded.get(fn) || fn, options]);
  }

  const nativeSetTimeout = setTimeout.bind(globalThis);
  const nativeClearTimeout = clearTimeout.bind(globalThis);
  const nativeIdle = typeof requestIdleCallback === "function" ? requestIdleCallback.bind(globalThis) : null;
  const perfNow = performance.now.bind(performance);
  const GRAIN_MS = 50; // callbacks due within this of each other run together

  // Callbacks waiting for `later`, unsorted: {at, fn}.
  const due = new Set();
  let armed = null;
  let armedAt = Infinity;

  /**
   * Runs `fn` about `ms` from now (never earlier, up to GRAIN_MS later) with
   * every other callback due by then, on one native timer: the deadlines a
   * burst of requests sets (a body's read timeout, a row waiting for its
   * timing) cost one timer task, not one each. Returns a function that cancels it.
   */
  function later(fn, ms) {
    const item = { at: perfNow() + ms, fn };
    due.add(item);
    arm(item.at);
    return () => {
      // Gone at once, so that a cancelled deadline (most body reads end long before theirs) never
      // wakes the page; with none left, the native timer goes too.
      due.delete(item);
      if (due.size === 0 && armed !== null) {
        nativeClearTimeout(armed);
        armed = null;
        armedAt = Infinity;
      }
    };
  }

  function arm(at) {
    if (at >= armedAt) return;
    if (armed !== null) nativeClearTimeout(armed);
    armedAt = at;
    armed = nativeSetTimeout(runDue, Math.max(0, at - perfNow()) + GRAIN_MS);
  }

  function runDue() {
    armed = null;
    armedAt = Infinity;
    const now = perfNow();
    const fire = [];
    let next = Infinity;
    try {
      for (const item of due) {
        if (item.at <= now) {
          fire[fire.length] = item.fn;
          due.delete(item);
        } else if (item.at < next) next = item.at;
      }
      if (next !== Infinity) arm(next);
    } catch {
      // the page broke what iterating a Set takes: what is due waits for the next deadline set
    }
    for (let i = 0; i < fire.length; i++) {
      const fn = fire[i];
      try {
        fn();
      } catch {
        // one callback failing must not stop the others
      }
    }
  }

  // Which page URL an event happened on, cheaply: the route changes navigation.js sees are
  // counted, and the URL each count ended on is kept. A console call notes the count (reading
  // location.href there costs microseconds); its entry, built later, names the URL of that count:
  // the current one when no route change came since, else the one kept when it ended.
  let routeCount = 0;
  const endedOn = new Map(); // count → the URL that held until the route changed
  const ROUTES_KEPT = 256;
  const pageUrl = {
    /** The count to note with an event. */
    now: () => routeCount,
    /** The URL the page was on at `count` (the current URL for the current count, or an unknown one). */
    at: (count) => (count === routeCount ? location.href : endedOn.get(count) || location.href),
    /**
     * The URL the page was on at `count` if it has left it since (a request sent before a route
     * change, its entry built after: a frame's URL read when the entry is sent would name the next
     * route), else undefined.
     */
    since: (count) => (count === routeCount || count === undefined ? undefined : endedOn.get(count)),
    /** The page left `from` for another URL (navigation.js, at every route change it sees). */
    left(from) {
      endedOn.set(routeCount, from);
      routeCount++;
      if (endedOn.size > ROUTES_KEPT) endedOn.delete(endedOn.keys().next().value);
    },
  };

  G.core = {
    apply,
    clean,
    invoke,
    weakMap,
    weakSet,
    fill,
    disguise,
    wrapConstructor,
    connectionId,
    listen,
    unlisten,
    setTimeout: (fn, ms) => nativeSetTimeout(guard(fn), ms),
    clearTimeout: nativeClearTimeout,
    later,
    requestIdleCallback: nativeIdle && ((fn, options) => nativeIdle(guard(fn), options)),
    now: Date.now,
    perfNow,
    Promise,
    then: Promise.prototype.then,
    Error,
    pageUrl,
  };
  G.sources = {};
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiY29yZS5qcyIsInNvdXJjZXMiOlsiZ2Fzb2xpbmUtZXh0ZW5zaW9uOi8vL3BhZ2UvY29yZS5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
