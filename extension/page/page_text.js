// The text of an HTML page as a person reads it, for an error page: the
// document itself when the server answered it with an error status
// (resources.js), or the HTML a fetch or an XHR got with one (bodies.js). A
// dev server's or a framework's error page (Django's, Rails', Laravel's, Vite's
// SSR 500) holds the server's error and stack in a few kilobytes of text, under
// as many of styles and scripts: the text is what an agent can read.
// Registry: reads core; adds pageText.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.core || G.pageText) return;
  const { apply } = G.core;
  // Taken before any page script runs: the page may replace them later.
  const createTreeWalker = typeof Document === "function" ? Document.prototype.createTreeWalker : null;
  const nextNode = typeof TreeWalker === "function" ? TreeWalker.prototype.nextNode : null;
  const SHOW_TEXT = 4; // NodeFilter.SHOW_TEXT
  const SHOW_ELEMENT = 1; // NodeFilter.SHOW_ELEMENT: a <br> ends a line

  const NOT_TEXT = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);
  // Elements that flow within a line: their text continues the line of the text before it in the
  // same block (a debug page's `File <cite>"app.py"</cite>, line <em>82</em>` is one line).
  const INLINE = new Set([
    "A", "ABBR", "B", "BDI", "BDO", "CITE", "CODE", "DATA", "DFN", "EM", "FONT", "I", "KBD", "LABEL", "MARK", "Q", "S",
    "SAMP", "SMALL", "SPAN", "STRONG", "SUB", "SUP", "TIME", "TT", "U", "VAR",
  ]);
  // Elements whose text keeps its spaces and lines (a stack in a <pre>, source lines).
  const PRESERVED = new Set(["PRE", "TEXTAREA", "LISTING", "XMP", "PLAINTEXT"]);
  const DEPTH = 8; // elements looked up from a text node for its table cell, its block

  /** The table cell a text node is in, if any, within DEPTH elements. */
  function cellOf(node) {
    let el = node.parentNode;
    for (let depth = 0; el && depth < DEPTH; depth++, el = el.parentNode) {
      if (el.nodeName === "TD" || el.nodeName === "TH") return el;
    }
    return null;
  }

  /** The element a text node's line belongs to: its nearest ancestor that is not inline. */
  function blockOf(node) {
    let el = node.parentNode;
    for (let depth = 0; el && depth < DEPTH && INLINE.has(el.nodeName); depth++) el = el.parentNode;
    return el;
  }

  /**
   * The lines of an error page's text, fed one text node at a time (`add`), at most `cap`
   * characters (`full` once past it), and whether more was left. A block a line, its inline
   * elements' text in it, spaces collapsed as a browser shows them (a <pre>'s kept), except that
   * the cells of a table row make one line, `name: value`: an error page's tables (Django's
   * settings, request and local variables) pair a name with its value, and the pair on one line is
   * what redaction knows a secret by (`CSRF_COOKIE: '…'`). A node is its text, the element its
   * line belongs to (`block`, whose `name` says whether its text keeps its spaces), and its table
   * cell (`cell`, whose `row` is the row it is in) or null.
   */
  function lines(cap) {
    let text = "";
    let lastCell = null;
    let lastBlock = null;
    let truncated = false;
    let broken = false; // a <br> since the last text: its line ends there
    return {
      add(raw, block, cell) {
        const kept = block !== null && PRESERVED.has(block.name);
        if (broken && text && !cell && block !== null && block === lastBlock) {
          // A line a <br> began in the same block (Express's error page: a <pre> of lines ended by
          // <br>, indented with &nbsp;): its indentation kept where the block keeps spaces.
          broken = false;
          const part = kept ? raw.replace(/\u00a0/g, " ").trimEnd() : raw.replace(/\s+/g, " ").trim();
          if (part.trim()) text = text.trimEnd() + "\n" + part;
        } else if (text && !cell && block !== null && block === lastBlock) {
          // The same line goes on: a <pre>'s text as written, else with its spaces collapsed.
          const more = kept ? raw : raw.replace(/\s+/g, " ");
          text += text.endsWith(" ") && more.startsWith(" ") ? more.slice(1) : more;
        } else {
          // A line's end is where its spaces end, for what its next inline element's text adds; a
          // <pre>'s stack keeps its lines and indentation.
          const part = (kept ? raw : raw.replace(/\s+/g, " ")).trimStart();
          if (!part) return;
          const sameRow = cell && lastCell && cell.row === lastCell.row;
          const joint = !text ? "" : sameRow ? (cell === lastCell ? " " : ": ") : "\n";
          text = text.trimEnd() + joint + part;
        }
        broken = false;
        lastCell = cell;
        lastBlock = block;
        if (text.length > cap) {
          text = text.slice(0, cap);
          truncated = true;
        }
      },
      /** A <br>: the next text of the same block begins a line. */
      lineBreak: () => {
        broken = true;
      },
      full: () => truncated,
      done: () => ({ text: truncated ? text : text.trimEnd(), truncated }),
    };
  }

  /** A DOM element as `lines` takes it: its name, and (a table cell's) its row. */
  const shapes = G.core.weakMap();
  function shape(el) {
    if (el === null) return null;
    let s = shapes.get(el);
    if (!s) {
      s = { name: el.nodeName, row: el.parentNode };
      shapes.set(el, s);
    }
    return s;
  }

  /**
   * The visible text of `doc` (the page itself, answered with an error status), at most `cap`
   * characters (read node by node: a large page costs no more than the cap), and whether more was
   * left; no layout is forced.
   */
  function ofDocument(doc, cap) {
    const root = doc.body || doc.documentElement;
    if (!root || !createTreeWalker) return { text: "", truncated: false };
    const walker = apply(createTreeWalker, doc, [root, SHOW_TEXT | SHOW_ELEMENT]);
    const out = lines(cap);
    for (let node = apply(nextNode, walker, []); node && !out.full(); node = apply(nextNode, walker, [])) {
      if (node.nodeType === 1) {
        if (node.nodeName === "BR") out.lineBreak();
        continue;
      }
      if (node.parentNode && NOT_TEXT.has(node.parentNode.nodeName)) continue;
      out.add(String(node.data), shape(blockOf(node)), shape(cellOf(node)));
    }
    return out.done();
  }

  // ---- HTML as text, without parsing it into a document ----------------------------------------
  // A response's HTML is read by a small tokenizer of our own rather than DOMParser: on a page that
  // enforces Trusted Types (`require-trusted-types-for 'script'`), parseFromString with a string is
  // a violation, reported to the page's listeners and its report endpoint and blocked, as if the
  // page had made it. The tokenizer follows the parser as far as an error page needs: elements and
  // their nesting, void elements, the implied ends of cells, rows, list items and paragraphs,
  // comments, raw text (scripts and styles skipped), character references.
  const VOID = new Set(["AREA", "BASE", "BR", "COL", "EMBED", "HR", "IMG", "INPUT", "KEYGEN", "LINK", "META", "PARAM", "SOURCE", "TRACK", "WBR"]);
  // Skipped with their content, to their end tag (the head's title is no text of the body).
  const SKIPPED = new Set(["SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT", "TITLE", "IFRAME", "NOEMBED", "NOFRAMES"]);
  // Text to their end tag, as written (no elements inside).
  const RAW_TEXT = new Set(["TEXTAREA", "XMP"]);
  const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", copy: "\u00a9", hellip: "\u2026", mdash: "\u2014", ndash: "\u2013", laquo: "\u00ab", raquo: "\u00bb", rarr: "\u2192", larr: "\u2190", times: "\u00d7" };
  const fromCodePoint = String.fromCodePoint;
  // The implied ends: of a cell, a row, a list item, a paragraph; each only within its container.
  const CELL = new Set(["TD", "TH"]);
  const ROW = new Set(["TR"]);
  const TABLE = new Set(["TABLE", "TBODY", "THEAD", "TFOOT"]);
  const LI = new Set(["LI"]);
  const LIST = new Set(["UL", "OL"]);
  const P = new Set(["P"]);
  const CELL_ENDS_BELOW = new Set([...ROW, ...TABLE]);
  const P_ENDS_BELOW = new Set(["DIV", "SECTION", "ARTICLE", "MAIN", ...TABLE, ...CELL]);

  function decode(text) {
    if (text.indexOf("&") < 0) return text;
    return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});?/g, (whole, ref) => {
      if (ref[0] !== "#") return ENTITIES[ref] ?? whole;
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? fromCodePoint(code) : "\ufffd";
    });
  }

  /** Where the tag that begins at `at` (its `<`) ends: past its `>`, quoted values skipped. */
  function tagEnd(html, at) {
    let quote = "";
    for (let i = at + 1; i < html.length; i++) {
      const c = html[i];
      if (quote) {
        if (c === quote) quote = "";
      } else if (c === '"' || c === "'") {
        if (/[=\s]/.test(html[i - 1])) quote = c;
      } else if (c === ">") return i + 1;
    }
    return html.length;
  }

  /** The text of `html` (a response's body) as ofDocument reads a page. */
  function ofHtml(html, cap) {
    const out = lines(cap);
    const body = { name: "BODY", parent: null, row: null };
    let top = body; // the open elements, innermost first through `parent`
    let inHead = false;
    const open = (name) => {
      top = { name, parent: top, row: top };
    };
    /** Closes the innermost open element of `names` (and what is open inside it), if one is open below `stop`. */
    const close = (names, stop) => {
      for (let e = top; e !== body; e = e.parent) {
        if (stop && stop.has(e.name)) return;
        if (names.has(e.name)) {
          top = e.parent;
          return;
        }
      }
    };
    /** An end tag: its innermost open element closed, and what is open inside it. */
    const closeTag = (name) => {
      for (let e = top; e !== body; e = e.parent) {
        if (e.name === name) {
          top = e.parent;
          return;
        }
      }
    };
    const text = (raw) => {
      if (inHead || !raw) return;
      let block = top;
      for (let depth = 0; block !== body && depth < DEPTH && INLINE.has(block.name); depth++) block = block.parent;
      let cell = null;
      let e = top;
      for (let depth = 0; e !== body && depth < DEPTH; depth++, e = e.parent) {
        if (CELL.has(e.name)) {
          cell = e;
          break;
        }
      }
      out.add(decode(raw), block, cell);
    };
    let i = 0;
    while (i < html.length && !out.full()) {
      const lt = html.indexOf("<", i);
      if (lt < 0) {
        text(html.slice(i));
        break;
      }
      if (lt > i) text(html.slice(i, lt));
      if (html.startsWith("<!--", lt)) {
        const end = html.indexOf("-->", lt + 4);
        i = end < 0 ? html.length : end + 3;
        continue;
      }
      const m = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(lt, lt + 64));
      if (!m) {
        if (html[lt + 1] === "!" || html[lt + 1] === "?" || html[lt + 1] === "/") i = tagEnd(html, lt); // doctype, bogus comment
        else {
          text("<"); // a "<" that starts no tag is text
          i = lt + 1;
        }
        continue;
      }
      const name = m[2].toUpperCase();
      i = tagEnd(html, lt);
      if (m[1]) {
        if (name === "HEAD") inHead = false;
        else closeTag(name);
        continue;
      }
      if (name === "HEAD") inHead = true;
      else if (name === "BODY") inHead = false;
      if (SKIPPED.has(name) || RAW_TEXT.has(name)) {
        const closing = new RegExp(`</${name}`, "ig");
        closing.lastIndex = i;
        const found = closing.exec(html);
        const end = found ? found.index : -1;
        const inner = html.slice(i, end < 0 ? html.length : end);
        if (RAW_TEXT.has(name)) {
          open(name);
          text(inner);
          top = top.parent;
        }
        i = end < 0 ? html.length : tagEnd(html, end);
        continue;
      }
      if (VOID.has(name)) {
        if (name === "BR" && !inHead) out.lineBreak();
        continue;
      }
      if (inHead && name !== "HEAD") inHead = false; // body content in the head ends it
      // The ends the parser implies: a cell by the next cell or row, a row by the next row, a list
      // item by the next, a paragraph by a block's start.
      if (CELL.has(name)) close(CELL, CELL_ENDS_BELOW);
      else if (ROW.has(name)) close(ROW, TABLE);
      else if (LI.has(name)) close(LI, LIST);
      else if (!INLINE.has(name)) close(P, P_ENDS_BELOW);
      open(name);
    }
    return out.done();
  }

  // A React Server Components page answered with an error status (Next.js's dev 500) shows no text:
  // the server's error is in the page's Flight data, the strings its inline scripts push to
  // `self.__next_f` (`[1, "…\n56:E{\"name\":\"Error\",\"message\":…,\"stack\":[[fn, file, line, col, …]]}\n…"]`).
  const FLIGHT_READ = 256 * 1024; // characters of Flight data looked through at most
  const FLIGHT_ERROR = /(?:^|\n)[0-9a-f]+:E(\{[^\n]*\})(?=\n|$)/;
  const FLIGHT_FRAMES = 5;

  /** The server's error a Flight array (`self.__next_f`) holds, as text (its message and frames), or "". */
  function flightError(chunks) {
    if (!Array.isArray(chunks)) return "";
    let data = "";
    for (let i = 0; i < chunks.length && data.length < FLIGHT_READ; i++) {
      const chunk = chunks[i];
      if (Array.isArray(chunk) && chunk[0] === 1 && typeof chunk[1] === "string") data += chunk[1];
    }
    const found = FLIGHT_ERROR.exec(data.slice(0, FLIGHT_READ));
    if (!found) return "";
    let error;
    try {
      error = JSON.parse(found[1]);
    } catch {
      return "";
    }
    if (!error || typeof error.message !== "string") return "";
    const head = `${typeof error.name === "string" ? error.name : "Error"}: ${error.message.slice(0, 2000)}`;
    const frames = (Array.isArray(error.stack) ? error.stack : [])
      .slice(0, FLIGHT_FRAMES)
      .filter((f) => Array.isArray(f) && typeof f[1] === "string")
      .map((f) => `    at ${typeof f[0] === "string" && f[0] ? `${f[0]} ` : ""}(${f[1].slice(0, 1024)}:${f[2]}:${f[3]})`);
    return `The server's error (React Server Components' data of the page):\n${[head, ...frames].join("\n")}`;
  }

  // A Nuxt page answered with an error status (its dev 500: "Server Error" and the message) holds the
  // server's error, stack and all, in its payload: `<script id="__NUXT_DATA__">`, devalue's flat array,
  // where an object is `{key: index}` (or `["null", key, index, …]`, one of no prototype) and Vue's
  // wrappers are `["Reactive", index]`.
  const NUXT_READ = 256 * 1024; // characters of the payload read at most
  const NUXT_WRAPPERS = new Set(["Reactive", "ShallowReactive", "Ref", "ShallowRef", "NuxtError", "Object"]);
  const NUXT_FRAMES = 6;

  /** The server's error a Nuxt payload's text holds (its message and first frames), or "". */
  function nuxtError(text) {
    if (typeof text !== "string" || text.length > NUXT_READ) return "";
    let data;
    try {
      data = JSON.parse(text);
    } catch {
      return "";
    }
    if (!Array.isArray(data)) return "";
    /** The object at `i`, its keys to their values' indexes, wrappers taken off. */
    const objectAt = (i) => {
      let v = data[i];
      for (let hops = 0; Array.isArray(v) && NUXT_WRAPPERS.has(v[0]) && hops < 4; hops++) v = data[v[1]];
      if (Array.isArray(v) && v[0] === "null") {
        const o = {};
        for (let k = 1; k + 1 < v.length; k += 2) o[v[k]] = v[k + 1];
        return o;
      }
      return v && typeof v === "object" && !Array.isArray(v) ? v : null;
    };
    const root = objectAt(0);
    const error = root && typeof root.error === "number" ? objectAt(root.error) : null;
    const said = (key) => (error && typeof data[error[key]] === "string" ? data[error[key]] : "");
    const message = said("message");
    if (!message) return "";
    const stack = said("stack");
    const frames = stack
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.startsWith("at "))
      .slice(0, NUXT_FRAMES)
      .map((l) => `    ${l.slice(0, 1024)}`);
    const status = data[error.statusCode];
    const head = `${typeof status === "number" ? `${status} ` : ""}${message.slice(0, 2000)}`;
    return `The server's error (Nuxt's data of the page):\n${[head, ...frames].join("\n")}`;
  }

  G.pageText = { ofDocument, ofHtml, flightError, nuxtError };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoicGFnZV90ZXh0LmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9wYWdlX3RleHQuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
