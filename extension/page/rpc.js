// Connect and gRPC-web calls from the page (connect-web, grpc-web): `POST /<package.Service>/<Method>`,
// known by the headers their clients send. A call's row and body name its method
// (`operation: "CartService/Checkout"`). Two failures no status shows become error entries
// (`source: "framework"`), as GraphQL's and tRPC's do:
// - gRPC-web answers every call 200: its status comes in a trailer frame at the end of the body
//   (flag 0x80, then `grpc-status: 9\r\ngrpc-message: item%207%20is%20out%20of%20stock\r\n`), or,
//   with no body (a proxy's "trailers-only" answer), in `grpc-status` and `grpc-message` headers;
// - a Connect stream ends with an end-stream frame (flag 0x02, JSON even for protobuf streams)
//   that holds `{"error":{"code":"unavailable","message":"…"}}` when the call failed.
// A unary Connect call's failure has its HTTP status and a JSON body already, as any API's.
// Frames are 1 flag byte, a 4-byte big-endian length, then the payload; only the end's payload is kept.
// Registry: reads core; adds rpc.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.core || G.rpc) return;
  const { apply, then, later } = G.core;

  const FRAMED = /^application\/(?:grpc-web|connect\+)/i;
  const METHOD_PATH = /\/([A-Za-z_][\w.]*)\/([A-Za-z_]\w*)$/;
  const TRAILER = 0x80; // gRPC-web
  const END_STREAM = 0x02; // Connect
  const MOST_KEPT = 16 * 1024; // an end frame's payload read at most
  const READ_FOR_MS = 120000; // a stream followed at most this long
  const CODES = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
  ];
  const decoder = new TextDecoder();

  /** Whether a request (its headers, lower-cased names) is a Connect or gRPC-web call. */
  function isCall(headers) {
    if (!headers || typeof headers !== "object") return false;
    const type = typeof headers["content-type"] === "string" ? headers["content-type"] : "";
    return headers["connect-protocol-version"] !== undefined || headers["x-grpc-web"] !== undefined || FRAMED.test(type);
  }

  /** The call's method as `Service/Method` (its package left out), from its URL; undefined for another path. */
  function methodOf(url) {
    const path = String(url).split(/[?#]/)[0];
    const m = METHOD_PATH.exec(path);
    return m ? `${m[1].split(".").pop()}/${m[2]}` : undefined;
  }

  /** The failure a gRPC status (a number as text) and its percent-encoded message say, or null for OK. */
  function grpcFailure(method, status, message) {
    const n = Number(status);
    if (!Number.isInteger(n) || n === 0) return null;
    let said = "";
    try {
      said = decodeURIComponent(String(message || ""));
    } catch {
      said = String(message || "");
    }
    return `gRPC-web: ${method} failed: ${CODES[n] || `code ${n}`}${said ? `: ${said.slice(0, 1000)}` : ""} (answered 200)`;
  }

  /** The failure a Connect end-stream frame's JSON says, or null when the stream ended well. */
  function connectFailure(method, json) {
    let end;
    try {
      end = JSON.parse(json);
    } catch {
      return null;
    }
    const error = end && typeof end === "object" ? end.error : null;
    if (!error || typeof error !== "object") return null;
    const code = typeof error.code === "string" ? error.code : "unknown";
    const said = typeof error.message === "string" ? `: ${error.message.slice(0, 1000)}` : "";
    return `Connect: ${method} failed: ${code}${said} (its stream answered 200)`;
  }

  /** The failure a gRPC-web trailer frame's header lines say, or null. */
  function trailerFailure(method, text) {
    let status = null;
    let message = "";
    for (const line of text.split("\r\n")) {
      const at = line.indexOf(":");
      if (at < 0) continue;
      const name = line.slice(0, at).trim().toLowerCase();
      if (name === "grpc-status") status = line.slice(at + 1).trim();
      else if (name === "grpc-message") message = line.slice(at + 1).trim();
    }
    return status === null ? null : grpcFailure(method, status, message);
  }

  /** What an answer's headers say of the call (`get(name)`): a trailers-only gRPC failure, or null. */
  function headersFailure(method, get) {
    const status = get("grpc-status");
    return status === null || status === undefined ? null : grpcFailure(method, status, get("grpc-message"));
  }

  /**
   * Reads a framed answer's body (`stream`, a clone's) frame by frame, skipping the messages and
   * keeping only the end's payload; `done(failure)` with what the end says, or null.
   */
  function readEnd(stream, method, done) {
    let reader = null;
    let finished = false;
    const header = new Uint8Array(5);
    let have = 0; // header bytes so far
    let skip = 0; // bytes of a message frame still to pass over
    let flag = 0;
    let kept = null; // the end frame's payload, as it comes
    let got = 0;
    const cancelTimeout = later(() => finish(null), READ_FOR_MS);

    function finish(failure) {
      if (finished) return;
      finished = true;
      cancelTimeout();
      if (reader) apply(then, reader.cancel(), [undefined, () => {}]);
      try {
        done(failure);
      } catch {
        // the caller's own failure stays ours
      }
    }

    /** The end frame is whole: what it says. */
    function ended() {
      const text = decoder.decode(kept);
      finish(flag & TRAILER ? trailerFailure(method, text) : connectFailure(method, text));
    }

    function feed(chunk) {
      let i = 0;
      while (i < chunk.length && !finished) {
        if (skip > 0) {
          const take = Math.min(skip, chunk.length - i);
          skip -= take;
          i += take;
        } else if (kept) {
          const take = Math.min(kept.length - got, chunk.length - i);
          kept.set(chunk.subarray(i, i + take), got);
          got += take;
          i += take;
          if (got === kept.length) ended();
        } else {
          header[have++] = chunk[i++];
          if (have < 5) continue;
          have = 0;
          flag = header[0];
          const length = ((header[1] << 24) | (header[2] << 16) | (header[3] << 8) | header[4]) >>> 0;
          if (!(flag & (TRAILER | END_STREAM))) skip = length;
          else if (length > MOST_KEPT) finish(null);
          else {
            kept = new Uint8Array(length);
            got = 0;
            if (length === 0) ended();
          }
        }
      }
    }

    function step(result) {
      if (finished) return;
      try {
        if (result.done) return finish(null);
        if (result.value instanceof Uint8Array) feed(result.value);
        if (!finished) apply(then, reader.read(), [step, () => finish(null)]);
      } catch {
        finish(null);
      }
    }

    try {
      reader = stream.getReader();
      apply(then, reader.read(), [step, () => finish(null)]);
    } catch {
      finish(null);
    }
  }

  /** Whether an answer's body is framed (a Connect stream's, gRPC-web's): its end tells how the call ended. */
  function isFramed(type) {
    return FRAMED.test(String(type || ""));
  }

  G.rpc = { isCall, methodOf, isFramed, headersFailure, readEnd };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoicnBjLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9ycGMuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
