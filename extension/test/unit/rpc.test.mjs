// page/rpc.js: a Connect or gRPC-web call is known by its client's headers and named by its
// method; a failure that no status shows is read from a trailers-only answer's headers or from the
// end frame of its framed body, however the body's chunks fall. The frames are as connect-node 2
// wrote them for a review's CartService.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
globalThis.__gasoline = {
  core: {
    apply: (fn, self, args) => fn.apply(self, args),
    then: Promise.prototype.then,
    later: (fn, ms) => {
      const t = setTimeout(fn, ms);
      return () => clearTimeout(t);
    },
  },
};
require("../../page/rpc.js");
const { rpc } = globalThis.__gasoline;
delete globalThis.__gasoline;

const bytes = (text) => new TextEncoder().encode(text);
/** A frame: its flag, a 4-byte big-endian length, its payload. */
function frame(flag, payload) {
  const out = new Uint8Array(5 + payload.length);
  out[0] = flag;
  new DataView(out.buffer).setUint32(1, payload.length);
  out.set(payload, 5);
  return out;
}
/** A stream of `whole` cut into chunks of `size` bytes. */
function streamOf(whole, size) {
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < whole.length; i += size) controller.enqueue(whole.slice(i, i + size));
      controller.close();
    },
  });
}
const join = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const ended = (whole, size) => new Promise((resolve) => rpc.readEnd(streamOf(whole, size), "CartService/Checkout", resolve));

test("a call is known by its client's headers and named by its method", () => {
  assert.equal(rpc.isCall({ "content-type": "application/json", "connect-protocol-version": "1" }), true);
  assert.equal(rpc.isCall({ "content-type": "application/grpc-web+proto", "x-grpc-web": "1" }), true);
  assert.equal(rpc.isCall({ "content-type": "application/connect+proto" }), true);
  assert.equal(rpc.isCall({ "content-type": "application/json" }), false);
  assert.equal(rpc.isCall(undefined), false);
  assert.equal(rpc.methodOf("http://localhost:5173/shop.v1.CartService/Checkout"), "CartService/Checkout");
  assert.equal(rpc.methodOf("http://localhost:5173/api/v2/orders"), "v2/orders");
  assert.equal(rpc.methodOf("http://localhost:5173/"), undefined);
});

test("a trailers-only answer's failure is in its headers", () => {
  const headers = { "grpc-status": "9", "grpc-message": "item%207%20is%20out%20of%20stock" };
  const get = (name) => (name in headers ? headers[name] : null);
  assert.equal(rpc.headersFailure("CartService/Checkout", get), "gRPC-web: CartService/Checkout failed: FAILED_PRECONDITION: item 7 is out of stock (answered 200)");
  assert.equal(rpc.headersFailure("CartService/Checkout", (name) => (name === "grpc-status" ? "0" : null)), null);
  assert.equal(rpc.headersFailure("CartService/Checkout", () => null), null);
});

const message = frame(0x00, bytes("\u0008\u0007\u0012\u0003abc"));
const trailer = (lines) => frame(0x80, bytes(lines));

test("gRPC-web's status in its trailer frame, wherever the chunks cut the body", async () => {
  const failed = join(message, trailer("grpc-message: item%207%20is%20out%20of%20stock\r\ngrpc-status: 9\r\ngrpc-status-details-bin: CAkS\r\n"));
  for (const size of [1, 3, 5, 7, failed.length]) {
    assert.equal(await ended(failed, size), "gRPC-web: CartService/Checkout failed: FAILED_PRECONDITION: item 7 is out of stock (answered 200)", `chunks of ${size}`);
  }
  assert.equal(await ended(join(message, trailer("grpc-status: 0\r\n")), 4), null, "OK");
  assert.equal(await ended(message, 4), null, "no trailer: the stream was cut");
});

test("a Connect stream's end-stream frame says how it ended", async () => {
  const order = frame(0x00, bytes('{"orderId":"ord-1"}'));
  const failed = join(order, order, frame(0x02, bytes('{"error":{"code":"unavailable","message":"order feed lost: upstream broker closed"}}')));
  assert.equal(await ended(failed, 6), "Connect: CartService/Checkout failed: unavailable: order feed lost: upstream broker closed (its stream answered 200)");
  assert.equal(await ended(join(order, frame(0x02, bytes("{}"))), 6), null, "ended well");
  assert.equal(await ended(join(order, frame(0x02, bytes("{not json"))), 6), null);
});

test("an end frame too large to be a status is not read", async () => {
  const big = new Uint8Array(5);
  big[0] = 0x80;
  new DataView(big.buffer).setUint32(1, 0x7fffffff);
  assert.equal(await ended(big, 5), null);
});
