// WebSocket → `websocket_events` (`transport: "websocket"`). The constructor
// is replaced by one that builds the original (core.wrapConstructor: so
// `ws.constructor === WebSocket`, `instanceof` and the prototype are as
// before, and subclasses still work); `send` is wrapped on the prototype.
// Frames are cut to WS_DATA_CAP before anything else.
// Registry: reads sources, core, outbox, serialize, limits, requests, engineIo; adds sources.websocket.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.websocket = function install({ core, outbox, serialize, limits, requests, engineIo }) {
    const { apply, fill, invoke, listen, wrapConstructor, connectionId } = core;
    const ids = core.weakMap();

    function frame(data) {
      if (typeof data === "string") {
        const c = serialize.cut(data, limits.WS_DATA_CAP);
        return c.truncated ? { data: c.text, size: c.size, truncated: true } : { data: c.text, size: c.size };
      }
      if (data instanceof Blob) return { data: `[Blob ${data.size} bytes]`, size: data.size };
      if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return { data: `[binary ${data.byteLength} bytes]`, size: data.byteLength };
      return { data: String(data) };
    }

    function record(ws, event, extra) {
      const url = ws.url;
      const id = ids.get(ws);
      outbox.emit("websocket_events", () => Object.assign({ transport: "websocket", connectionId: id, event, url }, extra()));
    }

    // A build error Vite's dev server sends on its HMR socket (a file that does not compile): with
    // its error overlay on, the page logs nothing of it, and the page still runs the old code. It
    // becomes an error entry (`source: "dev-server"`), so that "what broke" finds it. Astro's dev
    // server sends Vite's errors, and a page's own server-side error (its frontmatter threw: the
    // page's 500 holds no text of it), as the same message flagged `__isEnhancedAstroErrorPayload`,
    // its text rendered as HTML for its overlay and its `loc` column counted from 1.
    const MOST_PARSED = 1024 * 1024;
    /**
     * A dev server's build error message `text` as an error entry (`source: "dev-server"`, the
     * page's URL now), built in idle time: `read(payload)` gives its `{message, original}` from the
     * parsed message, or null when it says none. The same text heard again soon is the same error
     * ([`heardAgain`]): no second entry.
     */
    function buildError(text, read) {
      if (heardAgain(text)) return;
      const url = location.href;
      outbox.emit(
        "logs",
        () => {
          if (text.length > MOST_PARSED) return null;
          let payload;
          try {
            payload = JSON.parse(text);
          } catch {
            return null; // cut short, or not JSON after all
          }
          const said = read(payload);
          return said ? { level: "error", source: "dev-server", message: said.message, url, original: said.original } : null;
        },
        true,
      );
    }

    // A line that is a file's absolute path and nothing else (`/app/pages/index.vue`, `C:\app\x.vue`).
    const PATH_LINE = /^(?:\/|[A-Za-z]:[\\/])[^\n:*?"<>|]{0,1022}\.[A-Za-z]{1,8}$/m;
    function compileError(text) {
      buildError(text, (payload) => {
        const err = payload && payload.err;
        if (!err || typeof err.message !== "string") return null;
        const astro = payload.__isEnhancedAstroErrorPayload === true;
        const said = astro ? fromHtml(err.message) : err.message;
        const hint = astro && typeof err.hint === "string" && err.hint ? `\nHint: ${fromHtml(err.hint)}` : "";
        const plugin = typeof err.plugin === "string" && err.plugin ? `${err.plugin}: ` : "";
        // Where it broke, when the message does not say (Angular's compiler gives `loc` alone, and
        // its line's text in place of a code frame).
        const loc = err.loc && typeof err.loc === "object" ? err.loc : {};
        // @vitejs/plugin-vue gives neither: its message names the file on a line of its own.
        const file =
          typeof loc.file === "string" && loc.file
            ? loc.file
            : typeof err.id === "string"
              ? err.id
              : (PATH_LINE.exec(said.slice(0, 2048)) || [""])[0];
        // Its place in the source, as an entry a source map placed says it (`original`, 1-based).
        const at = file ? place(said, loc, astro ? 0 : 1) : null;
        const column = at ? at.column : undefined;
        const original = at ? { source: asServed(file).slice(0, 1024), line: at.line, column } : undefined; // a path, not a text
        const placed = at && !said.includes(file);
        const where = placed ? ` (${file}:${at.line}${column ? `:${column}` : ""})` : "";
        const line = placed && typeof loc.lineText === "string" ? `\n${at.line} | ${loc.lineText}` : "";
        // Babel's message holds its code frame already (Solid's and Vue's plugins): not twice.
        const framed = CODE_FRAME.test(said.slice(0, 8192));
        const codeFrame = typeof err.frame === "string" && err.frame && !framed ? `\n${err.frame}` : line;
        const from = astro ? "astro" : "vite";
        const message = serialize.cut(`[${from}] ${plugin}${said}${where}${hint}${codeFrame}`, limits.MESSAGE_CAP).text;
        return { message, original };
      });
    }

    // A file the dev server names by its absolute path (Vite's `loc.file`, `id`) as the page's own
    // modules name it, and as source maps place every other entry (`src/components/Noisy.tsx`):
    // the folders and name it shares with the path of a script the page loaded, two or more;
    // else as the dev server gave it (a module that never loaded).
    const getEntriesByType = Performance.prototype.getEntriesByType;
    function asServed(file) {
      if (!file.startsWith("/")) return file;
      const parts = file.split("/");
      let shared = 1;
      let entries = [];
      try {
        entries = apply(getEntriesByType, performance, ["resource"]);
      } catch {
        // no timing: as given
      }
      for (let i = 0; i < entries.length; i++) {
        let path;
        try {
          path = new URL(entries[i].name).pathname.split("/").map(decodeURIComponent);
        } catch {
          continue;
        }
        let n = 0;
        while (n < path.length - 1 && n < parts.length - 1 && path[path.length - 1 - n] === parts[parts.length - 1 - n]) n++;
        if (n > shared) shared = n;
      }
      return shared >= 2 ? parts.slice(parts.length - shared).join("/") : file;
    }

    // A line of a code frame: `  10 | …`, `> 12 | …`.
    const CODE_FRAME = /^ *>? *\d+ *\| /m;

    // Astro's overlay text as text: its links, bold and code marks taken off, its escapes read.
    const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };
    function fromHtml(html) {
      return html
        .replace(/<a href="[^"]*"[^>]*>([^<]*)<\/a>/g, "$1")
        .replace(/<\/?(?:b|code)>/g, "")
        .replace(/&(amp|lt|gt|quot|#39);/g, (_, name) => ENTITIES[name]);
    }

    // Vite sends one build error again each time the broken module is asked for (two or three
    // times a save), and again after each `update` as a framework's hot update climbs the import
    // chain (Solid's: error, update, error, update, error): the same text heard again within
    // REPEAT_MS of the last time is the same error, recorded once in this page. Broken again
    // later, after a fix, it is a new entry. An error's message is `{"type":"error",…}`, or has a
    // few flags before its type (Astro's).
    const ERROR_HEAD = /^\{(?:"[\w$]{1,40}":(?:true|false|null|-?\d{1,15}|"[^"\\]{0,80}"),){0,4}"type":"error"/;
    const REPEAT_MS = 10000;
    let lastError = "";
    let lastHeard = -Infinity;
    /** Whether this build error's text was heard within REPEAT_MS of the last time it was. */
    function heardAgain(text) {
      const heard = core.perfNow();
      const again = text === lastError && heard - lastHeard < REPEAT_MS;
      lastError = text;
      lastHeard = heard;
      return again;
    }
    function viteMessage(text) {
      if (ERROR_HEAD.test(text)) compileError(text);
    }

    // Rsbuild's dev server (Rspack) sends `{"type":"errors","data":{"text":[…]}}` on its HMR socket
    // (`/rsbuild-hmr`) when a build fails, each text Rspack's report: `File: ./src/App.tsx:1:1`, then
    // `× Module build failed …` and a code frame placed `╭─[10:17]` (its column from 0). Its client logs the texts too
    // (then they are there twice, as Vite's are with its overlay off); `{"type":"ok"}` follows a
    // build that succeeded again.
    const RSBUILD_SOCKET = /\/rsbuild-hmr(?:\?|$)/;
    const RSBUILD_ERRORS = '{"type":"errors"';
    const RSPACK_FILE = /^File: (\S+?)(?::\d+:\d+)?$/m;
    const RSPACK_PLACE = /─\[ ?(\d+):(\d+) ?\]/;
    const ANSI = /\u001b\[[0-9;]*m/g;
    function rsbuildMessage(text) {
      if (!text.startsWith(RSBUILD_ERRORS)) return;
      buildError(text, (payload) => {
        const texts = payload && payload.data && Array.isArray(payload.data.text) ? payload.data.text.filter((t) => typeof t === "string") : [];
        if (texts.length === 0) return null;
        const said = texts.join("\n\n").replace(ANSI, "");
        const head = said.slice(0, 8192);
        const file = RSPACK_FILE.exec(head);
        const at = RSPACK_PLACE.exec(head);
        // The frame's column counts from 0 (its marker stands under the next character): 1-based here, as editors count.
        const original = file && at ? { source: file[1].replace(/^\.\//, "").slice(0, 1024), line: Number(at[1]), column: Number(at[2]) + 1 } : undefined;
        return { message: serialize.cut(`[rsbuild] ${said}`, limits.MESSAGE_CAP).text, original };
      });
    }

    // Where a build error broke, 1-based: `loc` (Vite's from Rollup or esbuild, columns from 0:
    // `base` 1; Astro's from 1: `base` 0), else the place the message frames as
    // `╭─[ src/cart.ts:6:18 ]` (Vite 8's Oxc and Rolldown send no `loc`), read from the message's start.
    const FRAMED_PLACE = /─\[ ?[^\]\n]*?:(\d+):(\d+) ?\]/;
    function place(message, loc, base) {
      if (Number.isInteger(loc.line) && loc.line > 0) {
        const column = Number.isInteger(loc.column) && loc.column + base > 0 ? loc.column + base : undefined;
        return { line: loc.line, column };
      }
      const framed = FRAMED_PLACE.exec(message.slice(0, 4096));
      return framed ? { line: Number(framed[1]), column: Number(framed[2]) } : null;
    }

    // Parcel's dev server sends `{"type":"error","diagnostics":{"ansi":[…],"html":[…]}}` on its HMR
    // socket (the dev server's own port) when a build fails: each diagnostic its message, its code
    // frame and frames placed `/abs/src/App.tsx:21:18`. Its runtime logs it too (then it is there
    // twice) and logs "[parcel] ✨ Error resolved" after the next build that succeeded.
    const PARCEL_ERROR = '{"type":"error","diagnostics":{';
    const PLACED = /^(.*):(\d+):(\d+)$/;
    function parcelMessage(text) {
      if (!text.startsWith(PARCEL_ERROR)) return;
      buildError(text, (payload) => {
        const list = payload && payload.diagnostics && Array.isArray(payload.diagnostics.ansi) ? payload.diagnostics.ansi : [];
        const said = list
          .filter((d) => d && typeof d.message === "string")
          .slice(0, 10)
          .map((d) => `${d.message}${typeof d.codeframe === "string" && d.codeframe ? `\n${d.codeframe}` : ""}`)
          .join("\n\n")
          .replace(ANSI, "");
        if (!said) return null;
        const first = list[0] && Array.isArray(list[0].frames) ? list[0].frames[0] : undefined;
        const placed = first && typeof first.location === "string" ? PLACED.exec(first.location.slice(0, 2048)) : null;
        const original = placed ? { source: asServed(placed[1]).slice(0, 1024), line: Number(placed[2]), column: Number(placed[3]) } : undefined;
        return { message: serialize.cut(`[parcel] ${said}`, limits.MESSAGE_CAP).text, original };
      });
    }

    // webpack-dev-server (4 and 5: webpack's own dev setup, Module Federation's) sends
    // `{"type":"errors","data":[…]}` on its client socket when a build fails: each item webpack's
    // error (`moduleName` `./src/util.js`, `loc` `9:17`, `message`), or, from webpack 4, its text
    // alone. Its client logs them too, as ordinary console groups (then they are there twice), and
    // `{"type":"ok"}` follows a build that succeeded again. Its socket is `/ws` unless the project
    // names another; one that greets with webpack-dev-server's `{"type":"hot"}` or
    // `{"type":"liveReload"}` is one too (Angular CLI's `/ng-cli-ws`).
    const WEBPACK_SOCKET = /^wss?:\/\/[^/?#]*\/ws(?:[?#]|$)/;
    const WEBPACK_HELLO = ['{"type":"hot"}', '{"type":"liveReload"}'];
    const WEBPACK_ERRORS = '{"type":"errors","data":[';
    // webpack's `loc` (`9:17`, `9:17-20`, `9:17-10:2`, `9-12`), and the place its parser's and
    // Babel's messages name (`Unexpected token (9:17)`): both count columns from 0.
    const WEBPACK_LOC = /^(\d+)(?::(\d+))?/;
    const PARSER_PLACE = /\((\d+):(\d+)\)/;
    function webpackMessage(text) {
      if (!text.startsWith(WEBPACK_ERRORS)) return;
      buildError(text, (payload) => {
        const problems = payload && Array.isArray(payload.data) ? payload.data.slice(0, 10).map(webpackProblem).filter(Boolean) : [];
        if (problems.length === 0) return null;
        const said = problems.map((p) => p.text).join("\n\n");
        return { message: serialize.cut(`[webpack] ${said}`, limits.MESSAGE_CAP).text, original: problems[0].original };
      });
    }

    /** One of webpack's errors as webpack-dev-server's client logs it (`ERROR in ./src/util.js 9:17` and its message), and where it broke. */
    function webpackProblem(item) {
      let name;
      let loc;
      let message;
      if (typeof item === "string") {
        // webpack 4's text: the module (and its place) on the first line, then the message.
        const text = item.replace(ANSI, "");
        const end = text.indexOf("\n");
        const head = /^(\S*\/\S*)(?: (\d\S*))?$/.exec(end < 0 ? "" : text.slice(0, Math.min(end, 2048)));
        [name, loc, message] = head ? [head[1], head[2] || "", text.slice(end + 1)] : ["", "", text];
      } else if (item && typeof item.message === "string") {
        name = typeof item.moduleName === "string" ? item.moduleName : "";
        loc = typeof item.loc === "string" ? item.loc : "";
        message = item.message.replace(ANSI, "");
      } else {
        return null;
      }
      // The module as the project names it: its loaders (`…babel-loader…!./src/App.jsx`) and a
      // concatenation (`./src/index.js + 3 modules`) left out.
      const file = name.replace(/^.*!/, "").replace(/ \+ \d+ modules?$/, "");
      const text = `ERROR${file ? ` in ${file}` : ""}${loc ? ` ${loc}` : ""}\n${message}`;
      const head = message.slice(0, 8192);
      const at = WEBPACK_LOC.exec(loc) || PARSER_PLACE.exec(head);
      // 1-based, as editors count: the column of the character the parser did not expect.
      const placed = at ? { line: Number(at[1]), column: at[2] !== undefined ? Number(at[2]) + 1 : undefined } : swcPlace(head) || vfilePlace(head);
      const original = file && placed ? { source: file.replace(/^\.\//, "").slice(0, 1024), ...placed } : undefined;
      return { text, original };
    }

    // swc's code frame (Rspack's `builtin:swc-loader`, Docusaurus' and Next's builds): the line in
    // `,-[/app/src/App.tsx:3:1]`, the column where its `^` stands, under the gutter's `|` its `:`.
    const SWC_FRAME = /,-\[[^\]\n]*?:(\d+):\d+\]/;
    function swcPlace(message) {
      const framed = SWC_FRAME.exec(message);
      if (!framed) return null;
      const line = Number(framed[1]);
      const lines = message.slice(framed.index).split("\n", 64);
      const gutter = new RegExp(`(?:^|[^\\d])${line} \\|`);
      const at = lines.findIndex((l) => gutter.test(l));
      const found = at < 0 ? null : gutter.exec(lines[at]);
      const bar = found ? found.index + found[0].length - 1 : -1;
      const below = at < 0 || at + 1 >= lines.length ? "" : lines[at + 1];
      const caret = below.indexOf("^");
      const column = bar >= 0 && below[bar] === ":" && caret > bar + 1 ? caret - bar - 1 : undefined;
      return { line, column };
    }

    // A unified/vfile message's place (MDX's compiler, remark's, as Docusaurus' mdx-loader
    // prints it): `"name": "9:44"`, both 1-based.
    const VFILE_PLACE = /"name": "(\d+):(\d+)"/;
    function vfilePlace(message) {
      const named = VFILE_PLACE.exec(message);
      return named ? { line: Number(named[1]), column: Number(named[2]) } : null;
    }

    // Metro (Expo's, React Native for web's dev server) sends `{"type":"error","body":{…}}` on its
    // HMR socket (`/hot`) when a file does not compile: `body` Babel's error, `filename` as the
    // project names it (`components/Greeting.tsx`), `lineNumber`, `column` (from 0), `message` with
    // its code frame. Expo's client then throws it as an uncaught `TransformError`; an `update`
    // follows the build that succeeded again.
    const METRO_SOCKET = /^wss?:\/\/[^/?#]*\/hot(?:[?#]|$)/;
    const METRO_ERROR = '{"type":"error","body":{';
    function metroMessage(text) {
      if (!text.startsWith(METRO_ERROR)) return;
      buildError(text, (payload) => {
        const body = payload && payload.body;
        if (!body || typeof body.message !== "string" || typeof body.filename !== "string" || !body.filename) return null;
        const line = Number.isInteger(body.lineNumber) && body.lineNumber > 0 ? body.lineNumber : undefined;
        const column = line && Number.isInteger(body.column) && body.column >= 0 ? body.column + 1 : undefined;
        const source = asServed(body.filename.replace(/^\.\//, "")).slice(0, 1024);
        const said = `[metro] ${typeof body.type === "string" ? `${body.type}: ` : ""}${body.message.replace(ANSI, "")}`;
        return { message: serialize.cut(said, limits.MESSAGE_CAP).text, original: line ? { source, line, column } : undefined };
      });
    }

    // Next.js's dev server (Turbopack, and webpack before it) sends `{"type":"built","hash":…,
    // "errors":[{"message":…}],…}` on its HMR socket (`/_next/hmr`, `/_next/webpack-hmr`) after a
    // build, and `{"type":"sync","errors":[…],…}` to a page that connects: each error's message
    // begins with its place, `./app/components/Greeting.tsx:13:18` (columns from 1), then the
    // error and an ANSI code frame. Its client logs the message too (then it is there twice); a
    // `built` with no errors follows the build that succeeded again.
    const NEXT_SOCKET = /^wss?:\/\/[^/?#]*\/_next\/(?:webpack-)?hmr(?:[?#]|$)/;
    const NEXT_BUILT = /^\{"(?:type|action)":"(?:built|sync)"/;
    const NEXT_PLACE = /^\.\/(\S+?):(\d+):(\d+)\s*$/m;
    function nextMessage(text) {
      if (!NEXT_BUILT.test(text) || !text.includes('"errors":[{')) return;
      buildError(text, (payload) => {
        const errors = payload && Array.isArray(payload.errors) ? payload.errors : [];
        const said = errors
          .slice(0, 10)
          .map((e) => (e && typeof e.message === "string" ? e.message : typeof e === "string" ? e : ""))
          .filter(Boolean)
          .join("\n\n")
          .replace(ANSI, "");
        if (!said) return null;
        const placed = NEXT_PLACE.exec(said.slice(0, 2048).split("\n")[0]);
        const original = placed ? { source: placed[1].slice(0, 1024), line: Number(placed[2]), column: Number(placed[3]) } : undefined;
        return { message: serialize.cut(`[next] ${said}`, limits.MESSAGE_CAP).text, original };
      });
    }

    /**
     * Which dev server's build errors a socket carries, at its first text message (`first`): Vite's
     * by its protocol, the others by their socket's URL, webpack-dev-server's also by its greeting;
     * else Parcel's, whose socket is its dev server's own port and nothing more.
     */
    function readerOf(ws, first) {
      if (ws.protocol === "vite-hmr") return viteMessage;
      if (RSBUILD_SOCKET.test(ws.url)) return rsbuildMessage;
      if (WEBPACK_SOCKET.test(ws.url) || WEBPACK_HELLO.includes(first)) return webpackMessage;
      if (METRO_SOCKET.test(ws.url)) return metroMessage;
      if (NEXT_SOCKET.test(ws.url)) return nextMessage;
      return parcelMessage;
    }

    function watch(ws) {
      // The socket a Socket.IO session upgrades to is that session's connection (engine_io.js).
      ids.set(ws, (engineIo && engineIo.sessionOf(ws.url)) || connectionId());
      // Its handshake as a waterfall row: 101 once open, failed if it errs before.
      const request = requests.start("GET", ws.url, "websocket");
      request.connectionId = ids.get(ws); // the row names its socket: its frames are that socket's events
      listen(ws, "open", () => requests.end(request, { status: 101 }));
      // Closed by the page before it opened (React's StrictMode runs an effect twice, closing the
      // first socket at once): the browser says "error" as for a refused one, but the page did it.
      const failedWith = () => (closing.has(ws) ? "closed by the page before it opened" : "WebSocket connection failed");
      listen(ws, "error", () => requests.end(request, { failed: true, error: failedWith() }));
      listen(ws, "open", () => record(ws, "open", () => ({ protocol: ws.protocol })));
      // A dev server's build error, read by the reader of the socket it came on, chosen once: a
      // message of any other socket costs one string test.
      let read = null;
      listen(ws, "message", (e) => {
        const data = frame(e.data);
        record(ws, "message", () => Object.assign({ direction: "incoming" }, data));
        if (typeof e.data !== "string") return;
        if (read === null) read = readerOf(ws, e.data);
        read(e.data);
      });
      listen(ws, "close", (e) => {
        const { code, reason, wasClean } = e;
        // Who ended it: the page's close(), else the server's closing handshake, else neither
        // (the connection dropped: 1006, or a refused handshake).
        const closedBy = closing.has(ws) ? "page" : wasClean ? "server" : "network";
        record(ws, "close", () => ({ code, reason: reason || undefined, wasClean, closedBy }));
      });
      listen(ws, "error", () => record(ws, "error", () => ({})));
    }

    const Original = wrapConstructor("WebSocket", watch);
    if (!Original) return;
    const stateOf = Object.getOwnPropertyDescriptor(Original.prototype, "readyState").get;
    const OPEN = 1;
    // Sockets the page called close() on (Socket.IO's engine.close(), a component unmounting).
    const closing = core.weakSet();
    fill(Original.prototype, "close", (original) => ({
      close() {
        try {
          if (ids.has(this)) closing.add(this);
        } catch {
          // not one of ours
        }
        return invoke(original, this, arguments);
      },
    }).close);
    fill(Original.prototype, "send", (original) => ({
      send(data) {
        // Only what the socket takes is a message sent: send() throws before the socket is open,
        // and drops what it is given once it is closing or closed.
        let open = false;
        try {
          open = ids.has(this) && apply(stateOf, this, []) === OPEN;
        } catch {
          // not one of ours
        }
        const result = invoke(original, this, arguments);
        try {
          if (open) {
            const f = frame(data);
            record(this, "message", () => Object.assign({ direction: "outgoing" }, f));
          }
        } catch {
          // ignore
        }
        return result;
      },
    }).send);
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoid2Vic29ja2V0LmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS93ZWJzb2NrZXQuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
