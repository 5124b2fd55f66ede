// A fetch response's body as the page itself reads it, for fetch.js: no clone,
// no tee of the network data, no second read or decode. `watch(response, done)`
// marks a response, and the page's first read of it (text, json, arrayBuffer,
// bytes, blob, formData, or the `body` stream) is also ours: the text read
// (decoded once, by the read the page asked for, and cut to the cap) is handed
// to `done`. `json` is the page's `text` then `JSON.parse`, which is what the
// built-in does. A clone the page makes is watched by the same taker: the first
// read of the response or of its clone is ours. Taking the body stream
// (`response.body`: a reader, `pipeTo`, `new Response(response.body)`) clones
// the response at that moment, before
// the page has the stream, and reads the clone as bodies.readStream does. A
// body the page has not begun to read FALLBACK_MS after its headers is read
// from a clone then, as it would have been; one the browser consumed itself
// (the Cache API's put) is reported without its text. Whatever the page does
// with these methods answers as the built-ins do, from the same promises and
// errors; our part never throws at the page.
// Registry: reads core, bodies, limits; adds consumed.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.core || !G.bodies || G.consumed) return;
  const { apply, then, later, perfNow, fill, disguise, clean, invoke } = G.core;
  const { readStream, decodeAll } = G.bodies;
  const CAP = G.limits.BODY_CAP;
  const HTML_READ = G.limits.ERROR_PAGE_READ;
  const FALLBACK_MS = 1000;
  const proto = typeof Response === "function" ? Response.prototype : null;
  if (!proto) return;
  const getOwn = Object.getOwnPropertyDescriptor;
  const bodyOf = getOwn(proto, "body") && getOwn(proto, "body").get;
  const bodyUsedOf = getOwn(proto, "bodyUsed") && getOwn(proto, "bodyUsed").get;
  const clone = proto.clone;
  const urlOf = getOwn(proto, "url") && getOwn(proto, "url").get;
  // A SyntaxError a `json()` read threw → the URL of the response whose body was no JSON (an HTML
  // page answered to an API call): errors.js names it with the error (`jsonFrom`).
  const unparsed = G.core.weakMap();
  /** Remembers that `error` came of reading `response`'s body as JSON. */
  function notUnparsed(error, response) {
    try {
      if (error && typeof error === "object" && error.name === "SyntaxError") unparsed.set(error, apply(urlOf, response, []));
    } catch {
      // a response whose URL cannot be read: the error stays unnamed
    }
  }
  const textOf = proto.text;
  const parse = JSON.parse;
  const BYTES_READ = CAP * 4; // a character is at most four bytes: enough for CAP characters

  // response → the taker of its body; gone once taken.
  const watched = G.core.weakMap();

  /**
   * The page's first read of `response` is ours too; `done({body, end, to})` once, as fetch.js's
   * readResponse. `headersAt`: when its headers came, where a body the page left unread ends.
   * `errorPage`: the response is an error page (bodies.isErrorPage), whose HTML the page's read
   * also hands on whole, up to ERROR_PAGE_READ, for its text (`body.html`).
   */
  function watch(response, size, headersAt, done, errorPage = false) {
    const taker = { response, size, headersAt, done, errorPage, cancel: null };
    watched.set(response, taker);
    taker.cancel = later(() => fallback(response, taker), FALLBACK_MS);
  }

  /** Takes `response`'s taker, if it is watched: the first read wins. */
  function take(response) {
    const taker = watched.get(response);
    if (!taker) return null;
    watched.delete(response);
    if (taker.taken) return null; // a clone of it was read first
    taker.taken = true;
    try {
      taker.cancel();
    } catch {
      // the deadline was already gone
    }
    return taker;
  }

  function give(taker, text, size = taker.size) {
    if (typeof text !== "string") return failed(taker);
    try {
      const whole = size === undefined ? text.length : size;
      const truncated = text.length > CAP;
      const body = { text: truncated ? text.slice(0, CAP) : text, size: whole, truncated };
      if (taker.errorPage && truncated) body.html = text.slice(0, HTML_READ);
      taker.done({ body, end: perfNow(), to: "body" });
    } catch {
      // never an error the page could hear of
    }
  }

  function failed(taker) {
    try {
      taker.done({ body: undefined, end: perfNow(), to: "error" });
    } catch {
      // ignore
    }
  }

  /**
   * A read from a clone of `response`: the page takes the stream, or has not read the body. The
   * body of one the page left `unread` arrived at some point we cannot see: its entry ends at the
   * headers (`to: "headers"`; the request's row has the real end), not when we got round to it.
   * Returns a stop for the read, or null.
   */
  function readClone(response, taker, unread = false) {
    try {
      const copy = apply(clone, response, []);
      return readStream(apply(bodyOf, copy, []), taker.size, (body) =>
        !body
          ? failed(taker)
          : unread && body.ended === "body"
            ? taker.done({ body, end: taker.headersAt, to: "headers" })
            : taker.done({ body, end: perfNow(), to: body.ended }),
      );
    } catch {
      failed(taker);
      return null;
    }
  }

  function fallback(response, taker) {
    if (taker.taken || watched.get(response) !== taker) return;
    taker.taken = true;
    watched.delete(response);
    let used = true;
    try {
      used = apply(bodyUsedOf, response, []);
    } catch {
      // unreadable: leave it
    }
    if (used) failed(taker); // consumed where no read of ours could see it (the Cache API)
    else readClone(response, taker, true);
  }

  /**
   * `method` of Response.prototype, wrapped: on a watched response, `capture(value, taker)`
   * sees what the built-in's promise resolves to. The page gets the promise that follows
   * the built-in's (same value, same error), so a rejection it leaves unhandled is still
   * reported to it as unhandled.
   */
  function hook(method, capture) {
    fill(proto, method, (original) => ({
      [method]() {
        const taker = take(this);
        const result = invoke(original, this, arguments);
        if (!taker) return cleaned(result);
        try {
          return apply(then, result, [
            (value) => {
              try {
                capture(value, taker);
              } catch {
                failed(taker);
              }
              return value;
            },
            (error) => {
              failed(taker);
              throw clean(error);
            },
          ]);
        } catch {
          failed(taker);
          return result;
        }
      },
    })[method]);
  }

  /**
   * The built-in's promise, its rejection's error without our frame (the error's stack is taken at
   * the call); `noted(error)` first sees the rejection, where given.
   */
  const cleaned = (promise, noted) => {
    try {
      return apply(then, promise, [
        undefined,
        (error) => {
          if (noted) noted(error);
          throw clean(error);
        },
      ]);
    } catch {
      return promise;
    }
  };

  /** The first BYTES_READ bytes of `view` as text (a character cut there left out, as bodies.decodeAll does). */
  const decode = (view) => {
    try {
      const cut = view.byteLength > BYTES_READ;
      const bytes = cut ? view.subarray(0, BYTES_READ) : view;
      return decodeAll([bytes], bytes.byteLength, cut);
    } catch {
      return undefined;
    }
  };

  // A clone the page makes of a watched response is watched too, by the same taker: the first read
  // of either is ours (Turbo reads a visit's HTML from `response.clone().text()`; without this the
  // row waited for the read of our own a second later).
  fill(proto, "clone", (original) => ({
    clone() {
      const copy = invoke(original, this, arguments);
      const taker = watched.get(this);
      if (taker && !taker.taken) watched.set(copy, taker);
      return copy;
    },
  }).clone);

  hook("text", (text, taker) => give(taker, text));
  hook("arrayBuffer", (buffer, taker) => give(taker, decode(new Uint8Array(buffer)), buffer.byteLength));
  if (typeof proto.bytes === "function") hook("bytes", (bytes, taker) => give(taker, decode(bytes), bytes.byteLength));
  hook("blob", (blob, taker) => {
    try {
      apply(then, blob.slice(0, BYTES_READ).text(), [(text) => give(taker, text, blob.size), () => failed(taker)]);
    } catch {
      failed(taker);
    }
  });
  hook("formData", (form, taker) => {
    try {
      const described = G.bodies.describeBody(form);
      give(taker, described && described.text);
    } catch {
      failed(taker);
    }
  });

  // json: the built-in's own text read, then JSON.parse, as json() does: one read and one
  // decode, the page's promise settling with the parsed value or the parse's SyntaxError.
  fill(proto, "json", (original) => ({
    json() {
      const taker = take(this);
      const response = this;
      if (!taker) return cleaned(invoke(original, this, arguments), (error) => notUnparsed(error, response));
      let read;
      try {
        read = apply(textOf, this, []);
      } catch {
        failed(taker);
        return apply(original, this, arguments);
      }
      return apply(then, read, [
        (text) => {
          give(taker, text);
          try {
            return parse(text);
          } catch (error) {
            notUnparsed(error, response);
            // Our parse's SyntaxError loses its frames, all ours (the built-in's would show the
            // page's call site, which a stack taken here cannot have without an Error per call).
            try {
              error.stack = `${error.name}: ${error.message}`;
            } catch {
              // a frozen error: leave it
            }
            throw error;
          }
        },
        (error) => {
          failed(taker);
          throw clean(error);
        },
      ]);
    },
  }).json);

  // The body stream: cloned before the page has it, so that the page's reads and ours each have their
  // own branch. Our branch alone would keep the response coming (a tee reads its source while one
  // branch still reads): when the page cancels its branch, ours stops too, and the connection is
  // released as it would be without us. The page's stream, its readers and its async iterators →
  // the stop of our read.
  const stops = G.core.weakMap();
  if (bodyOf) {
    const own = {
      get body() {
        const taker = take(this);
        const stop = taker ? readClone(this, taker) : null;
        const stream = apply(bodyOf, this, []);
        if (stop && stream) stops.set(stream, stop);
        return stream;
      },
    };
    const getter = disguise(getOwn(own, "body").get, bodyOf);
    Object.defineProperty(proto, "body", { ...getOwn(proto, "body"), get: getter });
    hookCancel();
  }

  /** Our read's stop for `of` (the page's stream, a reader or an iterator of it), called once. */
  function stopFor(of) {
    const stop = stops.get(of);
    if (!stop) return;
    stops.delete(of);
    try {
      stop();
    } catch {
      // ours alone
    }
  }

  /** What `name` makes of a stream we follow (its reader, its async iterator) follows it too. */
  function follow(owner, name) {
    fill(owner, name, (original) => ({
      [name]() {
        const made = apply(original, this, arguments);
        const stop = stops.get(this);
        if (stop && made && typeof made === "object") {
          stops.set(made, stop);
          if (name !== "getReader") stopOnReturn(made);
        }
        return made;
      },
    })[name]);
  }

  /** `cancel` also stops our read. */
  function onCancel(owner, name) {
    fill(owner, name, (original) => ({
      [name]() {
        stopFor(this);
        return apply(original, this, arguments);
      },
    })[name]);
  }

  /** An async iterator of a stream we follow: its `return` (what `break` in `for await` calls) stops our read. */
  function stopOnReturn(iterator) {
    const ret = iterator.return;
    if (typeof ret !== "function") return;
    const own = {
      return() {
        stopFor(iterator);
        return apply(ret, this, arguments);
      },
    };
    Object.defineProperty(iterator, "return", { value: disguise(own.return, ret), writable: true, configurable: true });
  }

  function hookCancel() {
    const RS = typeof ReadableStream === "function" ? ReadableStream.prototype : null;
    if (!RS) return;
    const iterate = RS.values;
    follow(RS, "getReader");
    onCancel(RS, "cancel");
    for (const Reader of [globalThis.ReadableStreamDefaultReader, globalThis.ReadableStreamBYOBReader]) {
      if (typeof Reader === "function") onCancel(Reader.prototype, "cancel");
    }
    if (typeof iterate === "function") {
      follow(RS, "values");
      const d = getOwn(RS, Symbol.asyncIterator);
      if (d && d.value === iterate) Object.defineProperty(RS, Symbol.asyncIterator, { ...d, value: RS.values });
    }
  }

  G.consumed = {
    watch,
    /** The URL of the response whose body `error` (a SyntaxError) was thrown reading as JSON, or undefined. */
    jsonFrom: (error) => (error && typeof error === "object" ? unparsed.get(error) : undefined),
    /** Whether `response` has a body, by the built-in getter (never ours, which would take it). */
    hasBody: (response) => (bodyOf ? apply(bodyOf, response, []) !== null : Boolean(response.body)),
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiY29uc3VtZWQuanMiLCJzb3VyY2VzIjpbImdhc29saW5lLWV4dGVuc2lvbjovLy9wYWdlL2NvbnN1bWVkLmpzIl0sIm5hbWVzIjpbXSwibWFwcGluZ3MiOiJBQUFBIiwiaWdub3JlTGlzdCI6WzBdLCJ4X2dvb2dsZV9pZ25vcmVMaXN0IjpbMF19
