// The page world's small core, shared by every source in page/: the
// built-ins taken before any page script runs (a page may replace them
// later), `fill` to wrap a function so that it still looks native, and
// `listen` to add listeners the page cannot see through a patched
// addEventListener. Loaded after lib/ and before every other page/ file.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || G.core) return;

  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const addEventListener = EventTarget.prototype.addEventListener;
  const removeEventListener = EventTarget.prototype.removeEventListener;
  const nativeToString = Function.prototype.toString;

  // wrapper → original: Function.prototype.toString answers for a wrapper with
  // its original's "function fetch() { [native code] }".
  const originals = new WeakMap();
  const toString = {
    toString() {
      return apply(nativeToString, originals.get(this) || this, arguments);
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

  /** addEventListener with the original, so page patches of it never see ours. */
  function listen(target, type, fn, options) {
    apply(addEventListener, target, [type, fn, options]);
  }
  function unlisten(target, type, fn, options) {
    apply(removeEventListener, target, [type, fn, options]);
  }

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

  G.core = {
    apply,
    fill,
    disguise,
    listen,
    unlisten,
    guard,
    setTimeout: setTimeout.bind(globalThis),
    clearTimeout: clearTimeout.bind(globalThis),
    requestIdleCallback: typeof requestIdleCallback === "function" ? requestIdleCallback.bind(globalThis) : null,
    now: Date.now,
    perfNow: performance.now.bind(performance),
    Promise,
    then: Promise.prototype.then,
    Error,
  };
  G.sources = {};
})();
