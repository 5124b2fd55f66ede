// Request and response bodies for fetch.js and xhr.js, never read past their
// cap: a string or form is cut while it is walked, a Blob is sliced before it
// is read, a cloned stream is read chunk by chunk and cancelled at the cap,
// and a streamed upload or a streaming response (event-stream, ndjson) is
// recorded as a stream with its size when known, not read at all. A response
// that is an error page (HTML with an error status) is also read for its text
// (page_text.js).
// Registry: reads core, limits, pageText; adds bodies.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.core || G.bodies) return;
  const { limits } = G;
  const { later, apply, then, Promise } = G.core;
  const CAP = limits.BODY_CAP;
  const READ_TIMEOUT_MS = 10000;
  const settled = Promise.resolve(); // the core's Promise: `then` on it runs a callback a microtask later

  const TEXTUAL = /^text\/|json|xml|javascript|x-www-form-urlencoded|graphql|csv|yaml|multipart\/form-data/i;
  const STREAMING = limits.STREAMING_TYPES;

  /** `{text, size?, truncated?}` from parts joined by `sep`, stopping once past the cap. */
  function joinCapped(parts, sep) {
    let text = "";
    let truncated = false;
    for (const part of parts) {
      if (text.length > CAP) {
        truncated = true;
        break;
      }
      text += (text ? sep : "") + part;
    }
    if (text.length > CAP) truncated = true;
    return { text: text.slice(0, CAP), truncated };
  }

  /**
   * A name or value as application/x-www-form-urlencoded writes it (what a URLSearchParams body
   * sends): only alphanumerics and `*-._` as they are, a space as `+`.
   */
  const formEncode = (s) =>
    encodeURIComponent(s)
      .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, "+");

  function* formPairs(entries) {
    for (const [k, v] of entries) {
      const value = typeof v === "string" ? v : `[File ${v.name} ${v.size} bytes ${v.type}]`;
      yield `${formEncode(k)}=${formEncode(value)}`;
    }
  }

  /**
   * What a request body says, without reading past the cap:
   * `{text, size, truncated}` now, `{later: Promise<that>}`, or `{note, size, stream}`.
   */
  function describeBody(body, contentType) {
    if (body === undefined || body === null) return undefined;
    if (typeof body === "string") return { text: body.slice(0, CAP), size: body.length, truncated: body.length > CAP };
    if (body instanceof URLSearchParams) return joinCapped(formPairs(body.entries()), "&");
    if (body instanceof FormData) return joinCapped(formPairs(body.entries()), "&");
    if (body instanceof Blob) {
      const type = body.type || contentType || "";
      if (!TEXTUAL.test(type)) return { note: `[Blob ${body.size} bytes ${type}]`, size: body.size };
      // Through the built-in then: a page's replaced Promise.prototype.then never sees the body.
      return {
        later: apply(then, body.slice(0, CAP).text(), [(text) => ({ text, size: body.size, truncated: body.size > CAP })]),
        // What to say of it where the read cannot end (its document unloaded first).
        unread: `[Blob ${body.size} bytes ${type}, not read: the page was unloaded first]`,
        size: body.size,
      };
    }
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
      return { note: `[binary ${body.byteLength} bytes]`, size: body.byteLength };
    }
    if (typeof ReadableStream === "function" && body instanceof ReadableStream) return { note: "[stream]", stream: true };
    return { note: `[${Object.prototype.toString.call(body).slice(8, -1)}]` };
  }

  const NativeTextDecoder = TextDecoder; // taken before any page script could replace it
  const decoder = new NativeTextDecoder(); // UTF-8, as text() decodes; stateless between calls (no stream option)

  /**
   * The bytes of `chunks` (`bytes` in all) as text. `cut`: the bytes stop
   * before the body's end, so a character cut short there is left out rather
   * than decoded as U+FFFD (a decoder of its own, in stream mode).
   */
  function decodeAll(chunks, bytes, cut = false) {
    let all = chunks[0];
    if (chunks.length !== 1) {
      all = new Uint8Array(bytes);
      let at = 0;
      for (const c of chunks) {
        all.set(c, at);
        at += c.byteLength;
      }
    }
    return cut ? new NativeTextDecoder().decode(all, { stream: true }) : decoder.decode(all);
  }

  /**
   * Reads at most the cap of a stream that is ours (a clone's), then cancels
   * it, and calls `done({text, size, truncated, ended})` once, where `ended`
   * says what stopped the read: "body" (the stream ended), "cap" or "timeout"
   * (READ_TIMEOUT_MS); `done(null)` when the stream failed. Callbacks through
   * the built-in `then`, no async function: a body that arrives in one chunk
   * costs one reaction, and the bytes are decoded once, at the end. Nothing it
   * does can throw at the page or leave it an unhandled rejection, whatever
   * the page replaced (a reader's `read`, `TextDecoder`), `done` included.
   */
  function readStream(stream, knownSize, done) {
    let reader = null;
    const chunks = [];
    let bytes = 0;
    let finished = false;
    let cancelTimeout = null;

    function finish(ended, text) {
      if (finished) return;
      finished = true;
      let read = null;
      try {
        if (cancelTimeout) cancelTimeout();
        if (ended !== "body" && reader) apply(then, reader.cancel(), [undefined, () => {}]);
        if (ended !== "error") {
          const complete = ended === "body";
          if (text === undefined) text = decodeAll(chunks, bytes, !complete);
          read = { text: text.slice(0, CAP), size: complete ? bytes : knownSize, truncated: !complete || text.length > CAP, ended };
        }
      } catch {
        read = null;
      }
      try {
        done(read);
      } catch {
        // the caller's own failure stays ours
      }
    }

    function step(result) {
      if (finished) return;
      try {
        if (result.done) return finish("body");
        chunks.push(result.value);
        bytes += result.value.byteLength;
        // Past the cap in bytes: decoded, to count characters (a character is one to four bytes).
        if (bytes > CAP) {
          const text = decodeAll(chunks, bytes);
          if (text.length > CAP) return finish("cap", text);
        }
        next();
      } catch {
        finish("error");
      }
    }

    function next() {
      apply(then, reader.read(), [step, () => finish("error")]);
    }

    try {
      reader = stream.getReader();
      // One deadline for the whole read (on the page's shared timer).
      cancelTimeout = later(() => finish("timeout"), READ_TIMEOUT_MS);
      next();
    } catch {
      finish("error");
    }
    // Ends the read with what came (the page cancelled its own branch of this stream), a microtask
    // later: a chunk the page's branch just got is on its way to ours too.
    return () => apply(then, settled, [() => finish("cancelled")]);
  }

  /** readStream as a promise (rejected when the stream fails). */
  function readCapped(stream, knownSize) {
    return new Promise((resolve, reject) => readStream(stream, knownSize, (read) => (read ? resolve(read) : reject(new Error("body read failed")))));
  }

  /**
   * `fn(body)` for a body described by describeBody: at once when it needed
   * no read, once read when it did (`fn(undefined)` when the read failed),
   * through the built-in then.
   */
  function whenRead(body, fn) {
    if (body && body.later) apply(then, body.later, [fn, () => fn(undefined)]);
    else fn(body);
  }

  /** Entry fields for a body described by describeBody/readCapped, under `prefix`. */
  function bodyFields(prefix, body) {
    if (!body) return {};
    const fields = {};
    if (body.note !== undefined) fields[`${prefix}Body`] = body.note;
    else if (body.text !== undefined) fields[`${prefix}Body`] = body.text;
    if (body.truncated) fields[`${prefix}BodyTruncated`] = true;
    if (body.stream) fields[`${prefix}BodyStream`] = true;
    if (typeof body.size === "number" && (body.truncated || body.note !== undefined)) fields[`${prefix}BodySize`] = body.size;
    // A body not taken whose size is not known (a chunked binary answer): said unknown, so that no
    // reader counts the note's own length as the body's.
    else if (body.note !== undefined && prefix === "response") fields[`${prefix}BodySize`] = null;
    return fields;
  }

  const HTML = /^\s*(?:text\/html|application\/xhtml\+xml)\b/i;

  /** Whether a response with `status` and `contentType` is an error page: HTML, with an error status. */
  function isErrorPage(status, contentType) {
    return status >= 400 && HTML.test(String(contentType || ""));
  }

  // An error answer this short and without a page's parts is a fragment of one, kept as it came.
  const FRAGMENT_KEPT = 2048;
  const PAGE_PARTS = /<(?:!doctype|html|head|body|style|script|table)\b/i;

  /**
   * A waterfall row's mark of a fetch's or an XHR's answer that is an HTML error page (a Turbo
   * visit's, an htmx swap's): `errorPage`, the page the person then sees. `typeOf` gives the
   * content type, read only for an error status.
   */
  function errorPageMark(status, typeOf) {
    return status >= 400 && isErrorPage(status, typeOf()) ? { errorPage: true } : undefined;
  }

  // What stands in a response's body once its error page's text is taken.
  const ERROR_PAGE_NOTE = "[an HTML error page: its text is pageText]";

  /**
   * For `body`, a response's as read, when the response is an error page (isErrorPage): its text
   * (`pageText`, `pageTextTruncated`), from its whole HTML (`body.html`, up to ERROR_PAGE_READ)
   * where the read kept it, else from its text up to the cap; and the HTML itself left out
   * (`responseBody` a note, its size kept). An error page's HTML is mostly its styles, and its
   * tables put a name and its value in two cells, out of the reach of redaction: the text puts
   * them on one line, where redaction knows a secret by its name.
   */
  function errorPageFields(body, status, contentType) {
    if (!body || !isErrorPage(status, contentType)) return {};
    const html = typeof body.html === "string" ? body.html : body.text;
    const page = typeof html === "string" && G.pageText ? G.pageText.ofHtml(html, CAP) : null;
    if (!page || !page.text) return {};
    // A fragment (an htmx swap's 422, `<div id="note-error" class="field-error">Title is
    // required</div>`) keeps its markup beside its text: its ids and classes say what the page
    // swapped in, and it holds no table whose cells would part a secret from its name.
    if (html.length <= FRAGMENT_KEPT && !PAGE_PARTS.test(html)) return { pageText: page.text };
    return {
      responseBody: ERROR_PAGE_NOTE,
      responseBodyTruncated: undefined,
      responseBodySize: typeof body.size === "number" ? body.size : html.length,
      pageText: page.text,
      pageTextTruncated: page.truncated || undefined,
    };
  }

  // Taken before any page script runs: the page may replace them later.
  const NativeHeaders = typeof Headers === "function" ? Headers : null;
  const headersForEach = NativeHeaders ? NativeHeaders.prototype.forEach : null;
  const isArray = Array.isArray;
  const keysOf = Object.keys;

  /**
   * Header names in lower case, as the Headers API and HTTP/2 give them, from
   * what a page passes as `headers`: a Headers object, an array of pairs or a
   * record. Any other iterable (a generator, an iterator, a Map's entries) is
   * not read: it may be one-shot, and reading it first would leave the page's
   * request without its headers. Such a request's headers are reported as none.
   */
  function headersToObject(headers) {
    const out = {};
    try {
      if (!headers || typeof headers !== "object") return out;
      if (NativeHeaders && headers instanceof NativeHeaders) {
        apply(headersForEach, headers, [(value, name) => (out[name.toLowerCase()] = value)]);
      } else if (isArray(headers)) {
        for (let i = 0; i < headers.length; i++) {
          const pair = headers[i];
          if (pair && pair.length === 2) out[String(pair[0]).toLowerCase()] = String(pair[1]);
        }
      } else if (typeof headers[Symbol.iterator] !== "function") {
        const names = keysOf(headers);
        for (let i = 0; i < names.length; i++) out[names[i].toLowerCase()] = String(headers[names[i]]);
      }
    } catch {
      // unreadable headers: report none
    }
    return out;
  }

  function parseRawHeaders(raw) {
    const out = {};
    for (const line of String(raw || "").split(/\r?\n/)) {
      const i = line.indexOf(":");
      if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    return out;
  }

  // Taken before any page script runs: a page may replace URL or baseURI later.
  const NativeURL = URL;
  const baseURIOf = typeof Node === "function" ? Object.getOwnPropertyDescriptor(Node.prototype, "baseURI").get : null;

  /**
   * A request's URL made absolute as the browser makes it, at the call (a
   * later pushState or <base> changes what a relative URL means), so that a
   * body entry's url is its request row's, also in about:blank and srcdoc frames.
   */
  function absoluteUrl(url) {
    try {
      return new NativeURL(url, baseURIOf ? G.core.apply(baseURIOf, document, []) : undefined).href;
    } catch {
      return url;
    }
  }

  // Why a request whose response body broke off mid-way failed (fetch.js, xhr.js).
  const BROKE_OFF = "the response body broke off before its end (network error)";

  G.bodies = {
    TEXTUAL,
    STREAMING,
    BROKE_OFF,
    describeBody,
    decodeAll,
    readStream,
    readCapped,
    whenRead,
    bodyFields,
    isErrorPage,
    errorPageMark,
    errorPageFields,
    headersToObject,
    parseRawHeaders,
    absoluteUrl,
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiYm9kaWVzLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9ib2RpZXMuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
