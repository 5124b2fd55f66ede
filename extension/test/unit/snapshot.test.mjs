// Console arguments copied on the call (lib/snapshot.js): as they were then,
// bounded, and given back as plain data and `Later`s for serialize.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { snapshot, serialize, limits } from "./load.mjs";

const { take, values } = snapshot;
const shown = (args) => values(take(args)).map(serialize.formatArg);

test("primitives, objects, arrays, Maps, Sets and Dates as they were on the call", () => {
  const user = { name: "ann", tags: ["a"], when: new Date(0), prefs: new Map([["theme", { dark: true }]]), seen: new Set([1, 2]) };
  const tape = take(["user", user, 42, null, undefined, 10n, NaN]);
  user.name = "bob";
  user.tags.push("b");
  user.prefs.get("theme").dark = false;
  user.seen.add(3);
  assert.deepEqual(values(tape).map(serialize.formatArg), [
    "user",
    '{"name":"ann","tags":["a"],"when":"1970-01-01T00:00:00.000Z","prefs":{"[Map]":[["theme",{"dark":true}]]},"seen":{"[Set]":[1,2]}}',
    "42",
    "null",
    "undefined",
    "10n",
    "NaN",
  ]);
  const [, , n, nul, undef] = values(tape);
  assert.deepEqual([n, nul, undef], [42, null, undefined], "primitives come back as they are, for %d and %s");
});

test("past the budget, what is left is read when built; Errors always are", () => {
  const big = { head: "copied", rows: Array.from({ length: 100 }, (_, i) => ({ i, more: { x: i } })) };
  const error = new Error("boom");
  const tape = take([big, error], 50);
  big.head = "changed";
  big.rows[0].i = "changed";
  big.rows[99].i = "late";
  const [copy, err] = values(tape); // when the entry is built
  assert.ok(err instanceof serialize.Later && err.ref === error, "an Error is kept as it is");
  assert.equal(serialize.formatArg(err).split("\n")[0], "Error: boom");
  assert.ok(copy instanceof serialize.Plain);
  const shown = JSON.parse(serialize.formatArg(copy));
  assert.equal(shown.head, "copied");
  assert.equal(shown.rows[0].i, 0, "the first 50 values are copied on the call");
  assert.equal(shown.rows[99].i, "late", "values past the budget are read when built, as DevTools expands an object");
  assert.equal(shown.rows.length, 100);
});

test("circular references, depth, width, typed arrays and buffers are bounded", () => {
  const loop = { name: "loop" };
  loop.self = loop;
  let deep = {};
  const root = deep;
  for (let i = 0; i < 20; i++) deep = deep.next = {};
  const wide = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i]));
  const [l, d, w, typed, buffer, longList] = shown([loop, root, wide, new Uint8Array(500), new ArrayBuffer(8), Array.from({ length: 150 }, () => 0)]);
  assert.equal(l, '{"name":"loop","self":"[Circular]"}');
  assert.match(d, /"next":"\[Object\]"/);
  assert.equal(Object.keys(JSON.parse(w)).length, limits.ARG_KEYS + 1);
  assert.equal(JSON.parse(typed).at(-1), `… ${500 - limits.ARG_KEYS} more`);
  assert.equal(buffer, "[ArrayBuffer 8 bytes]");
  assert.equal(JSON.parse(longList).at(-1), `… ${150 - limits.ARG_KEYS} more`);
  const many = new Map(Array.from({ length: 150 }, (_, i) => [i, i]));
  assert.equal(JSON.parse(shown([many])[0])["[Map]"].at(-1), `… ${150 - limits.ARG_KEYS} more`);
});

test("a __proto__ key stays a key; getters that throw and revoked proxies do not break the call", () => {
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}');
  assert.equal(shown([parsed])[0], '{"__proto__":{"polluted":true},"ok":1}');
  assert.equal({}.polluted, undefined);
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const tricky = { get bad() { throw new TypeError("no"); }, fn: function named() {} };
  assert.deepEqual(shown(["a", revoked.proxy, tricky, "z"]), [
    "a",
    "[unserialisable: Cannot perform 'getPrototypeOf' on a proxy that has been revoked]",
    '{"bad":"[getter threw TypeError]","fn":"[Function named]"}',
    "z",
  ]);
});

test("a getter that takes a snapshot while one is being taken gets its own", () => {
  let inner;
  const outer = { get x() { inner = take([{ y: 2 }]); return 1; }, z: 3 };
  const tape = take([outer]);
  assert.equal(shown([outer])[0], '{"x":1,"z":3}');
  assert.equal(serialize.formatArg(values(tape)[0]), '{"x":1,"z":3}');
  assert.equal(serialize.formatArg(values(inner)[0]), '{"y":2}');
});

test("a Vue reactive object is copied from its raw object: none of its reads is tracked", () => {
  // Vue's reactive(): a Proxy whose get trap tracks every key read inside an effect, except its
  // own flags (__v_raw gives the raw object untracked); nested objects come back reactive too.
  const tracked = [];
  const reactive = (target) =>
    new Proxy(target, {
      get(t, key, receiver) {
        if (key === "__v_raw") return t;
        tracked.push(String(key));
        const v = Reflect.get(t, key, receiver);
        return v !== null && typeof v === "object" ? reactive(v) : v;
      },
      ownKeys(t) {
        tracked.push("[iterate]");
        return Reflect.ownKeys(t);
      },
    });
  const state = reactive({ count: 1, user: { id: 7, tags: ["a"] } });
  assert.deepEqual(shown(["state", state]), ["state", '{"count":1,"user":{"id":7,"tags":["a"]}}']);
  assert.deepEqual(tracked, [], "no read of ours went through the reactive proxy");
});

test("Vue's VNodes and component instances are named, not walked: Vue would warn at our reads", () => {
  // A component's public instance: a Proxy whose ownKeys trap warns in development, and which
  // answers its own flags; a VNode holding an app context whose compilerOptions getter warns.
  const warned = [];
  const ItemCard = { __name: "ItemCard" };
  const instance = new Proxy(
    { _: { type: ItemCard } },
    {
      get(t, key) {
        if (key === "__v_skip" || key === "__isVue") return true;
        if (key === "$") return t._;
        if (typeof key === "string" && key.startsWith("__v")) return undefined;
        warned.push(`read ${String(key)}`);
        return undefined;
      },
      ownKeys() {
        warned.push("Avoid app logic that relies on enumerating keys on a component instance");
        return [];
      },
    },
  );
  const config = {};
  Object.defineProperty(config, "compilerOptions", {
    enumerable: true,
    get() {
      warned.push("The compilerOptions config option is only respected when using a build of Vue.js that includes the runtime compiler");
      return {};
    },
  });
  const vnode = { __v_isVNode: true, __v_skip: true, type: ItemCard, props: { id: 7 }, appContext: { config } };
  const element = { __v_isVNode: true, __v_skip: true, type: "div", appContext: { config } };
  const ref = { __v_isRef: true, _value: instance, dep: {} };
  const args = ["[Vue warn]: Unhandled error", "at <ItemCard>", { vnode, ref, element }, instance];
  assert.deepEqual(shown(args), [
    "[Vue warn]: Unhandled error",
    "at <ItemCard>",
    '{"vnode":"[VNode ItemCard]","ref":{"[Ref]":"[Vue component ItemCard]"},"element":"[VNode div]"}',
    "[Vue component ItemCard]",
  ]);
  // Past the snapshot's budget, read when the entry is built: the same.
  assert.equal(serialize.formatArg(serialize.toPlain({ vnode }, 0, serialize.buildState())), '{"vnode":"[VNode ItemCard]"}');
  assert.deepEqual(warned, []);
  // markRaw'd data of the page's own is walked as any object.
  assert.deepEqual(shown([{ __v_skip: true, id: 1 }]), ['{"__v_skip":true,"id":1}']);
});

test("a sparse array's holes read as DevTools shows them, not as undefined", () => {
  const list = [1, , 3, , , , 7, undefined]; // eslint-disable-line no-sparse-arrays
  assert.deepEqual(shown([list]), ['[1,"[empty]",3,"[empty × 3]",7,undefined]']);
  const wide = new Array(5);
  wide[4] = "last";
  assert.deepEqual(shown([{ wide }]), ['{"wide":["[empty × 4]","last"]}']);
  // Past the snapshot's budget the array is copied when built: the same reading.
  assert.equal(serialize.formatArg(serialize.toPlain([, "b"], 0, serialize.buildState())), '["[empty]","b"]'); // eslint-disable-line no-sparse-arrays
});

test("a logged instance of a class is named before it, as DevTools shows it; what it holds is plain data", () => {
  class HttpErrorResponse {
    constructor() {
      this.status = 500;
      this.error = new (class Detail {
        constructor() {
          this.code = "E1";
        }
      })();
    }
  }
  class Sneaky {
    static get name() {
      throw new Error("a page's getter must not run");
    }
  }
  const sneaky = new Sneaky();
  sneaky.x = 1;
  const bare = Object.create(null);
  bare.y = 2;
  assert.deepEqual(shown([new HttpErrorResponse(), { plain: true }, sneaky, bare]), [
    'HttpErrorResponse {"status":500,"error":{"code":"E1"}}',
    '{"plain":true}',
    '{"x":1}',
    '{"y":2}',
  ]);
  // The argument's JSON is the object alone: the name is only in the message.
  assert.deepEqual(serialize.plain(values(take([new HttpErrorResponse()]))[0]), { status: 500, error: { code: "E1" } });
});

test("an event logged inside an object is its own data, its target by class: not the XHR's every getter and zone.js's keys", () => {
  // As Angular's HttpClient (XHR backend, under zone.js) builds an HttpErrorResponse for a refused request.
  class XMLHttpRequest extends EventTarget {
    constructor() {
      super();
      for (let i = 0; i < 100; i++) this[`__zone_symbol__task${i}`] = { source: "XMLHttpRequest.send", data: { url: "/api" } };
    }
  }
  class ProgressEvent extends Event {}
  // A WebIDL attribute is an enumerable getter of its prototype (a class's own getters are not).
  for (const name of ["loaded", "total"]) Object.defineProperty(ProgressEvent.prototype, name, { get: () => 0, enumerable: true });
  for (const name of ["readyState", "status"]) Object.defineProperty(XMLHttpRequest.prototype, name, { get: () => 4, enumerable: true });
  class HttpErrorResponse {
    constructor(error) {
      this.status = 0;
      this.statusText = "Unknown Error";
      this.message = "Http failure response for http://app.localhost/api/items: 0 Unknown Error";
      this.error = error;
    }
  }
  const xhr = new XMLHttpRequest();
  let event;
  xhr.addEventListener("error", (e) => (event = e));
  xhr.dispatchEvent(new ProgressEvent("error"));
  for (const text of [shown(["backend unreachable", new HttpErrorResponse(event)])[1], serialize.formatArg(new HttpErrorResponse(event))]) {
    const logged = JSON.parse(text.replace(/^HttpErrorResponse /, ""));
    assert.equal(logged.message, "Http failure response for http://app.localhost/api/items: 0 Unknown Error");
    assert.deepEqual([logged.error.type, logged.error.target, logged.error.loaded, logged.error.total], ["error", "[XMLHttpRequest]", 0, 0], text);
    assert.ok(!text.includes("__zone_symbol__") && !text.includes("CAPTURING_PHASE") && !text.includes("[Function"), text);
    assert.ok(text.length < 600, `${text.length}: ${text}`);
  }
  // Logged itself, the XHR is walked as any object, but for zone.js's own keys and the methods it
  // inherits (EventTarget's addEventListener…, enumerable as a platform object's are).
  assert.equal(shown([xhr])[0], 'XMLHttpRequest {"readyState":4,"status":4}');
});

test("a logged URL is its parts, as DevTools shows it: not the methods a platform object inherits", () => {
  const [text] = shown([new URL("http://localhost:5173/api/products?page=2")]);
  assert.ok(text.startsWith('URL {"href":"http://localhost:5173/api/products?page=2","origin":"http://localhost:5173",'), text);
  assert.ok(text.includes('"searchParams":{"size":1}') && !text.includes("[Function"), text);
  // An object's own functions are still shown, as DevTools shows them.
  assert.equal(shown([{ onClick() {} }])[0], '{"onClick":"[Function onClick]"}');
});
