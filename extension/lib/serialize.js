// Turning whatever a page logs into bounded text, without ever throwing:
// circular objects, DOM nodes, Errors with their stack and causes, getters that
// throw, very long strings, huge arrays and typed arrays. Runs when an entry is
// built, in the outbox's time slice; what a console call copies on the call is
// lib/snapshot.js, whose copies come back here as plain data and `Later`s.
// Registry: reads limits, causes; adds serialize.
(function (root) {
  const inNode = typeof module === "object" && module.exports;
  const limits = inNode ? require("./limits.js") : root.__gasoline.limits;
  const causes = inNode ? require("./causes.js") : root.__gasoline.causes;
  const stringify = JSON.stringify;
  // Built-ins as they were before any page script ran (lib/snapshot.js takes the same ones).
  const natives = {
    isArray: Array.isArray,
    isView: ArrayBuffer.isView,
    getPrototypeOf: Object.getPrototypeOf,
    defineProperty: Object.defineProperty,
    ObjectProto: Object.prototype,
    ArrayProto: Array.prototype,
    HasNode: typeof Node === "function" ? Node : null,
    HasEventTarget: typeof EventTarget === "function" ? EventTarget : null,
    HasEvent: typeof Event === "function" ? Event : null,
  };
  const { isArray, isView, getPrototypeOf, defineProperty, ObjectProto, ArrayProto, HasNode, HasEventTarget, HasEvent } = natives;
  const ownDescriptor = Object.getOwnPropertyDescriptor;
  const ownKeys = Object.keys;
  const hasOwn = Object.prototype.hasOwnProperty;
  const apply = Reflect.apply;

  /**
   * A method `object` inherits: a platform object's are enumerable (URL's `toString`,
   * URLSearchParams' `append`), a class's are not. DevTools shows an object's own functions, not
   * these: a logged URL is its parts, not forty `[Function …]`.
   */
  function inherited(object, key, v) {
    return typeof v === "function" && !apply(hasOwn, object, [key]);
  }
  // A RegExp as DevTools shows it (`/re/g`), from the built-in getters, whatever the page made of toString.
  const regexpSource = ownDescriptor(RegExp.prototype, "source").get;
  const regexpFlags = ownDescriptor(RegExp.prototype, "flags").get;
  const reflectApply = Reflect.apply; // the built-in, taken before any page script runs
  const call = (fn, self) => reflectApply(fn, self, []);
  const numberText = String;

  // What stands for a value JSON cannot hold while JSON.stringify writes it (see `Bare`).
  const BARE = "\uE000";

  /**
   * A value JSON cannot hold (NaN, ±Infinity, -0, undefined, a bigint, a symbol), written bare in
   * a message as DevTools shows it: `{"total":NaN}`, never the string `"NaN"` a reader would take
   * for what the page held.
   */
  class Bare {
    constructor(text) {
      this.text = text;
    }
    toJSON() {
      return BARE + this.text;
    }
  }
  const UNDEFINED = new Bare("undefined");

  /**
   * JSON text of a plain tree (what toPlain builds: objects, arrays, strings, numbers, booleans,
   * null, and `Bare` values written as they are). `JSON.stringify` asks every object for `toJSON`
   * up its prototype chain, so a page that put one on `Object.prototype` or `Array.prototype` (old
   * Prototype.js did) would rewrite every object logged, even one logged before: then, and when the
   * tree holds a `Bare` value (or a string with the character that marks one), the tree is written
   * here, asking nothing.
   */
  function plainJson(p) {
    if (!ownDescriptor(ObjectProto, "toJSON") && !ownDescriptor(ArrayProto, "toJSON")) {
      const text = stringify(p);
      if (typeof text !== "string" || !text.includes(BARE)) return text;
    }
    return encode(p);
  }

  function encode(v) {
    if (v === null) return "null";
    if (v instanceof Bare) return v.text;
    switch (typeof v) {
      case "string":
        return stringify(v); // a primitive string is never asked for toJSON
      case "number":
        return v === v && v !== Infinity && v !== -Infinity ? numberText(v) : "null";
      case "boolean":
        return v ? "true" : "false";
      case "object": {
        let out = "";
        if (isArray(v)) {
          for (let i = 0; i < v.length; i++) {
            const item = v[i];
            out += (i ? "," : "") + (item === undefined || typeof item === "function" ? "null" : encode(item));
          }
          return `[${out}]`;
        }
        const keys = ownKeys(v);
        for (let i = 0; i < keys.length; i++) {
          const item = v[keys[i]];
          if (item === undefined || typeof item === "function") continue;
          out += (out ? "," : "") + stringify(keys[i]) + ":" + encode(item);
        }
        return `{${out}}`;
      }
      default:
        return "null";
    }
  }

  /** An argument a snapshot gave back already JSON-safe and bounded: used as it is. */
  class Plain {
    /** `name`: the class of a logged instance (`HttpErrorResponse`), shown before it as DevTools does. */
    constructor(value, name) {
      this.value = value;
      if (name) this.name = name;
    }
  }

  /**
   * The class an object is an instance of, by its prototype's own `constructor` (data properties
   * only: no page getter runs), or "" for a plain object or a name no class would have.
   */
  function className(proto) {
    try {
      const c = proto && ownDescriptor(proto, "constructor");
      const fn = c && typeof c.value === "function" ? c.value : null;
      const n = fn && ownDescriptor(fn, "name");
      const name = n && typeof n.value === "string" ? n.value : "";
      return name !== "Object" && /^[A-Za-z_$][\w$]{0,99}$/.test(name) ? name : "";
    } catch {
      return ""; // a Proxy whose traps throw
    }
  }

  /** A value left to be read when the entry is built, `depth` levels down its argument. */
  class Later {
    constructor(ref, depth) {
      this.ref = ref;
      this.depth = depth;
    }
  }

  /** Cuts `text` to `cap` characters: {text, truncated, size}. */
  function cut(text, cap) {
    const s = String(text);
    if (s.length <= cap) return { text: s, truncated: false, size: s.length };
    return { text: s.slice(0, cap), truncated: true, size: s.length };
  }

  function describeNode(node) {
    if (node.nodeType === 1) {
      const id = node.id ? `#${node.id}` : "";
      const cls = typeof node.className === "string" && node.className.trim()
        ? "." + node.className.trim().split(/\s+/).join(".")
        : "";
      return `<${node.tagName.toLowerCase()}${id}${cls}>`;
    }
    if (node.nodeType === 3) return `#text ${stringify(String(node.textContent).slice(0, 80))}`;
    if (node.nodeType === 9) return "#document";
    return `[${node.nodeName}]`;
  }

  function isNode(v) {
    return HasNode !== null && v instanceof HasNode;
  }

  /**
   * An EventTarget inside a logged value (an event's `target`, the XHR an Angular
   * HttpErrorResponse's ProgressEvent came from, a window), by its class alone: walked, an XHR
   * is every getter of its prototype and, under zone.js, a hundred `__zone_symbol__` keys (13 KB
   * of one HttpErrorResponse in an Angular review), none of it what was logged. Logged itself
   * (at the top), it is walked as any object.
   */
  function nestedTarget(v, depth) {
    return depth > 0 && HasEventTarget !== null && v instanceof HasEventTarget ? `[${className(getPrototypeOf(v)) || "EventTarget"}]` : undefined;
  }

  /**
   * What Vue keeps out of its reactivity, shown as DevTools shows it collapsed: a VNode
   * (`[VNode ItemCard]`, `[VNode div]`) and a component's instance (`[Vue component ItemCard]`),
   * which Vue's warnings pass to the console. Copied, one is 16 KB of Vue's internals, and reading
   * them makes Vue warn in development (its instance's `ownKeys` trap: "Avoid app logic that
   * relies on enumerating keys on a component instance"; its app config's `compilerOptions`
   * getter): the page would log warnings it never logged without us. `__v_skip` is a VNode's own
   * property, and the instance answers it (and `__isVue`) before anything that could warn.
   */
  function vueInternal(v) {
    try {
      if (v.__v_skip !== true) return undefined;
      if (v.__isVue === true) return `[Vue component${vueName(v.$ && v.$.type)}]`;
      if (v.__v_isVNode === true) return `[VNode${vueName(v.type)}]`;
    } catch {
      // a Proxy's trap threw: not Vue's
    }
    return undefined;
  }

  /** A VNode's or a component's type, named: " div", " ItemCard", " Fragment", or "". */
  function vueName(type) {
    if (typeof type === "string") return ` ${type.slice(0, 60)}`;
    if (typeof type === "symbol") return type.description ? ` ${type.description.replace(/^v-fgt$/, "Fragment")}` : "";
    if (type !== null && (typeof type === "object" || typeof type === "function")) {
      const name = type.name || type.__name;
      return typeof name === "string" && name ? ` ${name.slice(0, 60)}` : "";
    }
    return "";
  }

  /** An Event's own data, without its constants (NONE, AT_TARGET…) or methods, which every event has. */
  function eventNoise(key, v) {
    return typeof v === "function" || /^[A-Z][A-Z_]*$/.test(key);
  }

  /**
   * A key zone.js (Angular) keeps its own bookkeeping under, on the objects it patched (an XHR
   * holds a hundred): never what the page logged, and it would fill an object's ARG_KEYS.
   */
  function zoneKey(key) {
    return key.startsWith("__zone_symbol__");
  }

  /** What of an object's properties to leave out: an Event's noise, or nothing. */
  function skipOf(v) {
    return HasEvent !== null && v instanceof HasEvent ? eventNoise : undefined;
  }

  /** An Error with its stack, cause chain and AggregateError members. */
  function describeError(e) {
    return causes.describeError(e, { stacks: true, describe: formatArg });
  }

  /** A primitive (or a function) as JSON-safe data, or as a `Bare` value where JSON has none. */
  function primitive(value) {
    switch (typeof value) {
      case "string":
        return value.length > limits.MESSAGE_CAP ? value.slice(0, limits.MESSAGE_CAP) + "…" : value;
      case "number":
        // -0 as DevTools shows it: JSON would write it as 0.
        if (value === 0) return 1 / value < 0 ? new Bare("-0") : 0;
        return Number.isFinite(value) ? value : new Bare(String(value));
      case "boolean":
        return value;
      case "undefined":
        return UNDEFINED;
      case "bigint":
        return new Bare(`${value}n`);
      case "symbol":
        return new Bare(value.toString());
      case "function":
        return `[Function ${value.name || "anonymous"}]`;
    }
    return null;
  }

  /** One property's value: objects copied, primitives made JSON-safe. */
  function child(value, depth, state) {
    return value !== null && typeof value === "object" ? toPlain(value, depth, state) : primitive(value);
  }

  /**
   * A JSON-safe copy of `value`, bounded in depth, width and total size.
   * `state`: {seen (the path of objects), budget (objects)}. A `Later` (from
   * a snapshot) is read now, from where it was left. Throws only what the
   * page's objects throw outside getters (a revoked Proxy): callers catch.
   */
  function toPlain(value, depth, state) {
    if (value === null || typeof value !== "object") return primitive(value);
    const vue = vueInternal(value);
    if (vue !== undefined) return vue;
    // Plain objects and arrays, most of what is logged, skip the other checks.
    const proto = getPrototypeOf(value);
    const plainObject = proto === ObjectProto || proto === null;
    const array = !plainObject && (proto === ArrayProto || isArray(value));
    if (!plainObject && !array) {
      if (value instanceof Plain) return value.value;
      if (value instanceof Later) return toPlain(value.ref, value.depth, state);
      if (value instanceof Error) return describeError(value);
      if (isNode(value)) return describeNode(value);
      const target = nestedTarget(value, depth);
      if (target !== undefined) return target;
    }
    if (state.seen.includes(value)) return "[Circular]";
    // Shared (not circular) references could otherwise multiply the work.
    if (depth >= limits.ARG_DEPTH || --state.budget < 0) return array ? "[Array]" : "[Object]";
    state.seen.push(value);
    const out = plainObject ? copyObject(value, depth, state) : array ? copyList(value, depth, state) : copyOther(value, depth, state);
    state.seen.pop();
    return out;
  }

  /**
   * How many holes of a sparse array start at `i` (before `end`): 0 where an item is,
   * `undefined` included. Asked only of an item that read as undefined.
   */
  function holesAt(list, i, end) {
    let k = i;
    try {
      while (k < end && !(k in list)) k++;
    } catch {
      return 0; // a Proxy's `has` trap threw: read as the undefined it gave
    }
    return k - i;
  }

  /** A run of holes as DevTools shows it: `[empty]`, `[empty × 3]`. */
  function hole(n) {
    return n === 1 ? "[empty]" : `[empty × ${n}]`;
  }

  /** The first ARG_KEYS items of an array or typed array, and how many more there are. */
  function copyList(value, depth, state) {
    const n = value.length;
    const shown = Math.min(n, limits.ARG_KEYS);
    const out = [];
    for (let i = 0; i < shown; i++) {
      const item = value[i];
      const holes = item === undefined ? holesAt(value, i, shown) : 0;
      if (holes) {
        out.push(hole(holes));
        i += holes - 1;
      } else out.push(child(item, depth + 1, state));
    }
    if (n > shown) out.push(`… ${n - shown} more`);
    return out;
  }

  /** The enumerable properties of `value`, at most ARG_KEYS of them; `skip(key, v)` leaves one out. */
  function copyObject(value, depth, state, skip) {
    const out = {};
    let n = 0;
    for (const key in value) {
      if (zoneKey(key)) continue;
      if (n >= limits.ARG_KEYS) {
        out["…"] = "more keys";
        break;
      }
      const v = readProperty(value, key);
      if (inherited(value, key, v) || (skip !== undefined && skip(key, v))) continue;
      n++;
      if (key === "__proto__") defineProperty(out, key, { value: child(v, depth + 1, state), enumerable: true, writable: true, configurable: true });
      else out[key] = child(v, depth + 1, state);
    }
    return out;
  }

  /** Typed arrays, Maps, Sets, Dates, buffers, class instances. */
  function copyOther(value, depth, state) {
    if (isView(value) && !(value instanceof DataView)) return copyList(value, depth, state);
    if (value instanceof Map || value instanceof Set) {
      const items = [];
      let n = 0;
      for (const item of value instanceof Map ? value.entries() : value.values()) {
        if (n++ >= limits.ARG_KEYS) break;
        items.push(item);
      }
      const shown = toPlain(items, depth + 1, state);
      if (isArray(shown) && value.size > items.length) shown.push(`… ${value.size - items.length} more`);
      const out = {};
      out[value instanceof Map ? "[Map]" : "[Set]"] = shown;
      return out;
    }
    if (value instanceof Date) return isNaN(value) ? "Invalid Date" : value.toISOString();
    if (value instanceof RegExp) {
      try {
        return `/${call(regexpSource, value)}/${call(regexpFlags, value)}`;
      } catch {
        return "/(?:)/"; // a RegExp subclass whose getters throw
      }
    }
    if (value instanceof ArrayBuffer) return `[ArrayBuffer ${value.byteLength} bytes]`;
    if (value instanceof DataView) return `[DataView ${value.byteLength} bytes]`;
    return copyObject(value, depth, state, skipOf(value));
  }

  function buildState() {
    return { seen: [], budget: limits.ARG_NODES };
  }

  /** A snapshot, or any value, made JSON-safe (what a `Later` holds is read now). */
  function plain(value) {
    try {
      return toPlain(value, 0, buildState());
    } catch (e) {
      return `[unserialisable: ${e && e.message}]`;
    }
  }

  /** One console argument (or its snapshot) as text: strings as they are, the rest as JSON. */
  function formatArg(value) {
    try {
      if (typeof value === "string") return value;
      const p = value instanceof Plain ? value.value : toPlain(value, 0, buildState());
      const text = typeof p === "string" ? p : plainJson(p);
      return value instanceof Plain && value.name ? `${value.name} ${text}` : text;
    } catch (e) {
      return `[unserialisable: ${e && e.message}]`;
    }
  }

  /** `formatArg`, except `stacked` (an Error whose stack is carried apart): its head lines, without frames. */
  function formatArgBeside(value, stacked) {
    if ((value instanceof Later ? value.ref : value) !== stacked) return formatArg(value);
    try {
      return causes.describeError(stacked, { stacks: false, describe: formatArg });
    } catch (e) {
      return `[unserialisable: ${e && e.message}]`;
    }
  }

  /** A console call's arguments joined as one bounded message (no format specifiers: see format.js). */
  function formatMessage(args) {
    const parts = [];
    for (const arg of args) parts.push(formatArg(arg));
    return cut(parts.join(" "), limits.MESSAGE_CAP);
  }

  /** The Error among `args` (or their snapshots), if any. */
  function errorOf(args) {
    for (const arg of args) {
      const e = arg instanceof Later ? arg.ref : arg;
      if (e instanceof Error) return e;
    }
    return undefined;
  }

  /** Stack of the first Error among `args` (`errorOf`), with its causes and members, cut to MESSAGE_CAP. */
  function stackOf(args) {
    const e = errorOf(args);
    if (!e) return undefined;
    if (!causes.hasChain(e)) {
      let stack;
      try {
        stack = e.stack;
      } catch {
        // a getter that throws
      }
      if (typeof stack !== "string") return undefined;
      // Its head as its class names it (`ApiError: …` where V8 wrote `Error: …`), as its message says.
      return cut(causes.headed(e, stack), limits.MESSAGE_CAP).text;
    }
    return cut(describeError(e), limits.MESSAGE_CAP).text;
  }

  /** `object[key]`, or what its getter threw, named: reading a page's value never throws. */
  function readProperty(object, key) {
    try {
      return object[key];
    } catch (e) {
      return `[getter threw ${e && e.name}]`;
    }
  }

  const serialize = {
    natives,
    readProperty,
    inherited,
    nestedTarget,
    vueInternal,
    skipOf,
    zoneKey,
    className,
    holesAt,
    hole,
    Later,
    Plain,
    Bare,
    primitive,
    toPlain,
    buildState,
    cut,
    plain,
    formatArg,
    formatArgBeside,
    formatMessage,
    plainJson,
    errorOf,
    stackOf,
    describeNode,
    describeError,
  };
  if (typeof module === "object" && module.exports) module.exports = serialize;
  root.__gasoline = Object.assign(root.__gasoline || {}, { serialize });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoic2VyaWFsaXplLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vbGliL3NlcmlhbGl6ZS5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
