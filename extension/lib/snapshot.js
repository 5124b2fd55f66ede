// A console call's arguments as they are on the call, copied cheaply so that
// an object changed right after logging is recorded as it was. The copy is a
// "tape": one flat array per call of primitives, property names and marker
// tokens (an object is OBJECT, name, value, …, END), which costs a few pushes
// per value and is one object for the collector to keep until the entry is
// built. At most SNAPSHOT_VALUES values are copied per call, ARG_DEPTH deep,
// ARG_KEYS per object; an Error (its stack is costly to read) and whatever
// lies past the budget are kept as references (`Later`) and read when the
// entry is built, as DevTools shows an expanded object's current state.
// `values(tape)` gives the arguments back as plain data for serialize.js.
// Registry: reads limits, serialize; adds snapshot.
(function (root) {
  const inNode = typeof module === "object" && module.exports;
  const limits = inNode ? require("./limits.js") : root.__gasoline.limits;
  const serialize = inNode ? require("./serialize.js") : root.__gasoline.serialize;
  const { Later, Plain, describeNode, primitive, toPlain, buildState, className } = serialize;
  const { isArray, isView, getPrototypeOf, defineProperty, ObjectProto, ArrayProto, HasNode } = serialize.natives;

  // Tokens no page value can be (private objects).
  const OBJECT = { token: "object" };
  const ARRAY = { token: "array" };
  const END = { token: "end" };
  const LATER = { token: "later" }; // followed by the reference and its depth
  const ARG = { token: "arg" }; // starts each argument
  const NAMED = { token: "named" }; // followed by the class name of the argument after it

  // One state reused by every call (a fresh one if a getter's code takes a snapshot meanwhile).
  const shared = { seen: [], values: 0, budget: 0, maxDepth: 0, busy: false };

  /** The tape of `args` (an array or `arguments`), within `values` copied values and `maxDepth`. */
  function take(args, values = limits.SNAPSHOT_VALUES, maxDepth = limits.ARG_DEPTH) {
    const s = shared.busy ? { seen: [], values: 0, budget: 0, maxDepth: 0, busy: false } : shared;
    s.busy = true;
    s.values = values;
    s.budget = limits.ARG_NODES;
    s.maxDepth = maxDepth;
    const tape = [];
    try {
      for (let i = 0; i < args.length; i++) {
        const start = tape.length;
        tape.push(ARG);
        try {
          put(tape, args[i], 0, s);
        } catch (e) {
          // a revoked Proxy, a trap that throws: this argument only
          tape.length = start + 1;
          tape.push(`[unserialisable: ${e && e.message}]`);
          s.seen.length = 0;
        }
      }
    } finally {
      s.busy = false;
    }
    return tape;
  }

  /**
   * A Vue reactive proxy's raw object: Vue answers this key with it without tracking the read.
   * Copying the raw object keeps an effect or watcher that logs its state from coming to depend
   * on every property the copy reads (and from running again whenever one changes).
   */
  function rawOf(value) {
    try {
      const raw = value.__v_raw;
      return raw !== null && typeof raw === "object" && raw !== value ? raw : value;
    } catch {
      return value;
    }
  }

  /**
   * A Vue ref (`ref(0)`, a computed) as `{"[Ref]": its value}`: logged as it is, its value sits at
   * the end of its internals (dep, flags, version…), past the cut. Read from `_value`, which
   * tracks nothing and computes nothing.
   */
  function refOf(value) {
    try {
      return value.__v_isRef === true && "_value" in value ? { "[Ref]": value._value } : value;
    } catch {
      return value;
    }
  }

  function put(tape, value, depth, s) {
    if (value === null || typeof value !== "object") {
      tape.push(value); // primitives are immutable; functions are described when built
      return;
    }
    value = refOf(rawOf(value));
    const vue = serialize.vueInternal(value);
    if (vue !== undefined) {
      tape.push(vue);
      return;
    }
    const proto = getPrototypeOf(value);
    const plainObject = proto === ObjectProto || proto === null;
    const array = !plainObject && (proto === ArrayProto || isArray(value));
    if (!plainObject && !array) {
      if (value instanceof Error) {
        tape.push(LATER, value, depth);
        return;
      }
      if (HasNode !== null && value instanceof HasNode) {
        tape.push(describeNode(value));
        return;
      }
      const target = serialize.nestedTarget(value, depth);
      if (target !== undefined) {
        tape.push(target);
        return;
      }
    }
    if (s.seen.includes(value)) {
      tape.push("[Circular]");
      return;
    }
    if (s.values <= 0) {
      tape.push(LATER, value, depth);
      return;
    }
    if (depth >= s.maxDepth || --s.budget < 0) {
      tape.push(array ? "[Array]" : "[Object]");
      return;
    }
    s.seen.push(value);
    if (plainObject) putObject(tape, value, depth, s);
    else if (array || (isView(value) && !(value instanceof DataView))) putList(tape, value, depth, s);
    else putOther(tape, value, depth, s);
    s.seen.pop();
  }

  function putList(tape, list, depth, s) {
    const n = list.length;
    const shown = Math.min(n, limits.ARG_KEYS);
    tape.push(ARRAY);
    for (let i = 0; i < shown; i++) {
      s.values--;
      const item = list[i];
      const holes = item === undefined ? serialize.holesAt(list, i, shown) : 0;
      if (holes) {
        tape.push(serialize.hole(holes));
        i += holes - 1;
      } else put(tape, item, depth + 1, s);
    }
    if (n > shown) tape.push(`… ${n - shown} more`);
    tape.push(END);
  }

  /** `skip(key, v)`: a property left out (an Event's constants and methods: serialize.skipOf). */
  function putObject(tape, object, depth, s, skip) {
    tape.push(OBJECT);
    let n = 0;
    for (const key in object) {
      if (serialize.zoneKey(key)) continue;
      if (n >= limits.ARG_KEYS) {
        tape.push("…", "more keys");
        break;
      }
      const v = serialize.readProperty(object, key);
      if (serialize.inherited(object, key, v) || (skip !== undefined && skip(key, v))) continue;
      n++;
      s.values--;
      tape.push(key);
      put(tape, v, depth + 1, s);
    }
    tape.push(END);
  }

  /** Maps, Sets, Dates, buffers, class instances. */
  function putOther(tape, value, depth, s) {
    if (value instanceof Map || value instanceof Set) {
      const isMap = value instanceof Map;
      const items = [];
      for (const item of isMap ? value.entries() : value.values()) {
        if (items.length >= limits.ARG_KEYS) break;
        items.push(item);
      }
      tape.push(OBJECT, isMap ? "[Map]" : "[Set]");
      put(tape, items, depth + 1, s);
      if (value.size > items.length && tape[tape.length - 1] === END) {
        tape[tape.length - 1] = `… ${value.size - items.length} more`;
        tape.push(END);
      }
      tape.push(END);
    } else if (value instanceof Date) tape.push(isNaN(value) ? "Invalid Date" : value.toISOString());
    else if (value instanceof ArrayBuffer) tape.push(`[ArrayBuffer ${value.byteLength} bytes]`);
    else if (value instanceof DataView) tape.push(`[DataView ${value.byteLength} bytes]`);
    else {
      // A logged instance of a class says which, before it (`HttpErrorResponse {…}`), as DevTools does.
      const name = depth === 0 ? className(getPrototypeOf(value)) : "";
      if (name) tape.push(NAMED, name);
      putObject(tape, value, depth, s, serialize.skipOf(value));
    }
  }

  /** The value at `at.i`, JSON-safe: what a `Later` holds is read now, within `state`. */
  function read(tape, at, depth, state) {
    const t = tape[at.i++];
    if (t === OBJECT) {
      const out = {};
      while (tape[at.i] !== END) {
        const key = tape[at.i++];
        const v = read(tape, at, depth + 1, state);
        if (key === "__proto__") defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
        else out[key] = v;
      }
      at.i++;
      return out;
    }
    if (t === ARRAY) {
      const out = [];
      while (tape[at.i] !== END) out.push(read(tape, at, depth + 1, state));
      at.i++;
      return out;
    }
    if (t === LATER) {
      const ref = tape[at.i++];
      return toPlain(ref, tape[at.i++], state);
    }
    return primitive(t);
  }

  /**
   * The arguments of a tape, when the entry is built: primitives as they
   * were (for %d, %s), objects as `Plain` JSON-safe copies, and an Error or an
   * object past the budget as a `Later`, read by serialize.js.
   */
  function values(tape) {
    const out = [];
    const at = { i: 0 };
    while (at.i < tape.length) {
      at.i++; // ARG
      let name;
      if (tape[at.i] === NAMED) {
        name = tape[at.i + 1];
        at.i += 2;
      }
      const t = tape[at.i];
      if (t === OBJECT || t === ARRAY) {
        try {
          out.push(new Plain(read(tape, at, 0, buildState()), name));
        } catch (e) {
          out.push(`[unserialisable: ${e && e.message}]`);
          while (at.i < tape.length && tape[at.i] !== ARG) at.i++;
        }
      } else if (t === LATER) {
        out.push(new Later(tape[at.i + 1], tape[at.i + 2]));
        at.i += 3;
      } else {
        out.push(t);
        at.i++;
      }
    }
    return out;
  }

  const snapshot = { take, values };
  if (typeof module === "object" && module.exports) module.exports = snapshot;
  root.__gasoline = Object.assign(root.__gasoline || {}, { snapshot });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoic25hcHNob3QuanMiLCJzb3VyY2VzIjpbImdhc29saW5lLWV4dGVuc2lvbjovLy9saWIvc25hcHNob3QuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
