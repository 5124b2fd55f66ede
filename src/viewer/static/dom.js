// Building the page: elements with their text set through textContent only.
// Captured data is hostile (it comes from any page the user opened): nothing
// here ever parses a string as HTML, and no captured value becomes a link.
// Every text and attribute goes through `shown`/`visible`: characters a person
// cannot see (bidi controls, zero-width characters) appear as ⟨U+202E⟩ tokens
// (a joiner inside an emoji sequence or a word of Persian stays: the CLI's rule).

const SVG = "http://www.w3.org/2000/svg";

/**
 * Characters that are invisible yet change how text reads: the bidi embeddings,
 * overrides, isolates and marks (Trojan Source: U+202A–U+202E, U+2066–U+2069,
 * U+200E/U+200F, U+061C), and the characters with no width and no mark of their own
 * (Unicode's default-ignorables but the variation selectors emoji and ideographs take):
 * the soft hyphen, the combining grapheme joiner, the Hangul, Khmer and Mongolian
 * fillers and selectors, the zero-width space and joiners, the word joiner, invisible
 * operators and deprecated format characters, the BOM, musical formatting and the tag
 * characters (but a flag's, after 🏴). The CLI's list (src/printable.rs), but the line and paragraph
 * separators, which the page shows as the breaks they are (a list's line as ⏎).
 */
const INVISIBLE =
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF0-\uFFF8\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}\u{E01F0}-\u{E0FFF}]/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, "gu");
const NAMES = {
  0x00ad: "soft hyphen",
  0x061c: "arabic letter mark",
  0x200b: "zero width space",
  0x200c: "zero width non-joiner",
  0x200d: "zero width joiner",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "pop directional formatting",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x2060: "word joiner",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first strong isolate",
  0x2069: "pop directional isolate",
  0x3164: "hangul filler",
  0xfeff: "zero width no-break space (BOM)",
};

function token(c) {
  return `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

/**
 * Whether the character at `i` of `text` is a zero-width joiner or non-joiner between two non-ASCII
 * characters (how an emoji sequence (👩‍👩‍👧) or a word of Persian or Hindi is written, and no ASCII
 * name can hide behind it), or a tag of a flag's sequence. It stays as it is: the rule of the CLI
 * (src/printable.rs, docs/cli.md).
 * (A code unit above 0x7F is a non-ASCII character, a surrogate of one included.)
 */
function joins(text, i) {
  const c = text.charCodeAt(i);
  if ((c === 0x200c || c === 0x200d) && i > 0 && i + 1 < text.length) return text.charCodeAt(i - 1) > 0x7f && text.charCodeAt(i + 1) > 0x7f;
  return inFlag(text, i);
}

const isTag = (cp) => cp >= 0xe0020 && cp <= 0xe007f;
/** A tag character after 🏴 or another tag: a flag's sequence (England, Scotland, Wales) stays. */
function inFlag(text, i) {
  if (i < 2 || !isTag(text.codePointAt(i))) return false;
  const before = text.codePointAt(i - 2); // every tag and 🏴 are two code units
  return before === 0x1f3f4 || isTag(before);
}

/** `text` with each invisible character written as a ⟨U+202E⟩ token: for attributes, options, SVG titles. */
export function visible(text) {
  return INVISIBLE.test(text) ? text.replace(INVISIBLE_ALL, (c, i) => (joins(text, i) ? c : token(c))) : text;
}

/**
 * `text` as nodes to put in the page: a text node, or (when it holds invisible
 * characters) text nodes around a marked `span.invisible` token for each, its
 * name in the tooltip. Never markup: every piece is set as text.
 */
export function shown(text) {
  if (!INVISIBLE.test(text)) return document.createTextNode(text);
  const out = document.createDocumentFragment();
  let from = 0;
  for (const m of text.matchAll(INVISIBLE_ALL)) {
    if (joins(text, m.index)) continue; // stays in the text around it
    if (m.index > from) out.appendChild(document.createTextNode(text.slice(from, m.index)));
    const mark = document.createElement("span");
    mark.className = "invisible";
    mark.title = NAMES[m[0].codePointAt(0)] || "invisible character";
    mark.textContent = token(m[0]);
    out.appendChild(mark);
    from = m.index + m[0].length;
  }
  if (from < text.length) out.appendChild(document.createTextNode(text.slice(from)));
  return out;
}

/**
 * el("div.a.b", {attrs}, ...children): children are nodes or text (strings and
 * numbers become text nodes). Attributes go through setAttribute, except
 * `on*` functions (listeners) and `text` (textContent).
 */
export function el(spec, attrs = {}, ...children) {
  return build(document.createElement(tagOf(spec)), spec, attrs, children);
}

/** The same, in the SVG namespace. */
export function svg(spec, attrs = {}, ...children) {
  return build(document.createElementNS(SVG, tagOf(spec)), spec, attrs, children);
}

function tagOf(spec) {
  return spec.split(".")[0] || "div";
}

function build(node, spec, attrs, children) {
  const classes = spec.split(".").slice(1);
  if (classes.length) node.setAttribute("class", classes.join(" "));
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") setText(node, String(v));
    else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "class") node.setAttribute("class", [node.getAttribute("class"), v].filter(Boolean).join(" "));
    else node.setAttribute(k, v === true ? "" : visible(String(v)));
  }
  append(node, children);
  return node;
}

/** Sets the text of `node`: marked tokens inside HTML, the token text where only text may go. */
export function setText(node, text) {
  if (node.namespaceURI === SVG || node.localName === "option" || node.localName === "title") node.textContent = visible(text);
  else node.replaceChildren(shown(text));
}

function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    node.appendChild(c instanceof Node ? c : shown(String(c)));
  }
}

/** Replaces the children of `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** Text shortened to `n` characters for a cell, saying how much was left. */
export function cut(text, n = 400) {
  const s = text === undefined || text === null ? "" : String(text);
  return s.length > n ? `${s.slice(0, n)}… (+${s.length - n} chars)` : s;
}

/** Every way a text can break a line (CR LF, LF, CR, VT, FF, NEL, the line and paragraph separators). */
const BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;

/**
 * Text for one line of a list, shortened as `cut` does: each line break a visible ⏎, so that a
 * multi-line message (React's "unique key" warning and its component stack) stays in its row
 * rather than running over the rows under it. The detail pane shows it whole.
 */
export function line(text, n = 400) {
  return cut(text, n).replace(BREAKS, "⏎");
}

/** The Date of an epoch-ms `ts`, or null when it is no number or no date can hold it (past ±8.64e15). */
function dateOf(ts) {
  if (typeof ts !== "number" || !Number.isFinite(ts)) return null;
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** A time of day with milliseconds, local time; "invalid time" for a stored number no date can hold. */
export function clock(ts) {
  if (typeof ts !== "number") return "";
  const d = dateOf(ts);
  if (!d) return "invalid time";
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** A date and time, local; for a number no date can hold, that number. */
export function when(ts) {
  if (typeof ts !== "number") return "never";
  const d = dateOf(ts);
  return d ? `${d.toLocaleDateString()} ${clock(ts)}` : `invalid time (${ts})`;
}

/**
 * The time cell of a list: a <time> with the clock time, its ISO form in `datetime` and the
 * stored number in the tooltip; a number no date can hold says "invalid time" in its own row
 * alone (a throw here would blank the whole list).
 */
export function timeCell(ts) {
  const d = dateOf(ts);
  return el("time", { datetime: d ? d.toISOString() : undefined, title: d ? undefined : `stored time: ${ts}`, text: clock(ts) });
}

/** A size as DevTools writes it: kB and MB of 1000 (26900 → "26.9 kB"), whole from 100 up. */
export function bytes(n) {
  if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) return "";
  if (n < 1000) return `${Math.round(n)} B`;
  const unit = (v, name) => (v < 99.95 ? `${v.toFixed(1)} ${name}` : `${Math.round(v)} ${name}`);
  if (n < 999_500) return unit(n / 1000, "kB");
  if (n < 999_500_000) return unit(n / 1e6, "MB");
  return unit(n / 1e9, "GB");
}

export function ms(n) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "";
  return n < 1000 ? `${Math.round(n * 10) / 10} ms` : `${(n / 1000).toFixed(2)} s`;
}

/**
 * A JSON value as an expandable tree (<details> per object or array), every
 * key and value as text. Long strings are cut, with a button for the rest.
 */
export function tree(value, name, depth = 0) {
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    const open = depth < 1;
    const label = Array.isArray(value) ? `Array(${entries.length})` : `{${entries.length}}`;
    return el(
      "details.tree",
      { open },
      el("summary", {}, name !== undefined ? el("span.key", { text: `${name}: ` }) : null, el("span.dim", { text: label })),
      el("ul", {}, entries.map(([k, v]) => el("li", {}, tree(v, k, depth + 1)))),
    );
  }
  const cls = value === null ? "null" : typeof value;
  return el(
    "span.leaf",
    {},
    name !== undefined ? el("span.key", { text: `${name}: ` }) : null,
    typeof value === "string" ? longText(value, `v-${cls}`) : el(`span.v-${cls}`, { text: JSON.stringify(value) }),
  );
}

/** A string shown in chunks of 64 KB: a 1 MB line does not freeze the page. */
export function longText(value, cls = "", tag = "span") {
  const CHUNK = 64 * 1024;
  const text = typeof value === "string" ? value : value === undefined || value === null ? "" : (JSON.stringify(value) ?? String(value));
  const node = el(`${tag}.${cls || "text"}`.replace(/\.$/, ""), { text: text.slice(0, CHUNK) });
  if (text.length <= CHUNK) return node;
  let done = CHUNK;
  const more = el("button.more", {
    type: "button",
    text: `show more (${text.length - done} more characters)`,
    onclick: () => {
      node.appendChild(shown(text.slice(done, done + CHUNK)));
      done += CHUNK;
      if (done >= text.length) more.remove();
      else more.textContent = `show more (${text.length - done} more characters)`;
    },
  });
  return el("span.long", {}, node, more);
}
