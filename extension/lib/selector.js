// A stable CSS selector and the visible text of an element, for actions.
// Registry: reads limits; adds selector.
(function (root) {
  const limits = typeof module === "object" && module.exports ? require("./limits.js") : root.__gasoline.limits;
  const STABLE_ATTRS = ["data-testid", "data-test", "data-cy", "data-qa", "name", "aria-label"];
  // Ids and classes that frameworks generate change on every build: skip them.
  // A run of four digits or more is a counter or a hash; three may be a name's ("err500", "h264").
  const GENERATED_FORMS = /\d{4,}|^css-|^sc-|^_|^jsx-|^ember\d|:/i;
  // A short prefix and a hash, which has a digit among its letters ("el-8fj2k") or mixed case
  // ("x-bdVaJa"); a prefix and a word ("nav-settings", "btn-submit"), a number after it or not
  // ("nav-item99"), is a name someone chose.
  const HASHED = /^[a-z]{1,3}-(?=[a-z\d]*\d[a-z]|[a-z\d]*[A-Z])[a-zA-Z\d]{5,}$/;
  const GENERATED = { test: (name) => GENERATED_FORMS.test(name) || HASHED.test(name) };

  function cssEscape(s) {
    return typeof CSS !== "undefined" && CSS.escape ? CSS.escape(s) : String(s).replace(/[^\w-]/g, (c) => `\\${c}`);
  }

  function attrSelector(el, name) {
    const value = el.getAttribute(name);
    return value && value.length <= 80 ? `${el.tagName.toLowerCase()}[${name}="${value.replace(/"/g, '\\"')}"]` : null;
  }

  const MAX_SIBLINGS = 1000; // walked per element: a click in a 100,000-row list stays cheap

  /**
   * `el`'s position among its siblings of the same tag when it has any (0 when
   * it has none, or when that would mean walking past MAX_SIBLINGS).
   */
  function nthOfType(el) {
    let before = 0;
    let walked = 0;
    for (let s = el.previousElementSibling; s; s = s.previousElementSibling) {
      if (++walked > MAX_SIBLINGS) return 0;
      if (s.tagName === el.tagName) before++;
    }
    if (before) return before + 1;
    for (let s = el.nextElementSibling; s; s = s.nextElementSibling) {
      if (++walked > MAX_SIBLINGS) return 0;
      if (s.tagName === el.tagName) return 1;
    }
    return 0;
  }

  /** The shortest part that names `el` on its own among its siblings. */
  function part(el) {
    const tag = el.tagName.toLowerCase();
    if (el.id && !GENERATED.test(el.id)) return { text: `#${cssEscape(el.id)}`, unique: true };
    for (const name of STABLE_ATTRS) {
      const sel = attrSelector(el, name);
      if (sel) return { text: sel, unique: true };
    }
    const classes = (typeof el.className === "string" ? el.className.trim().split(/\s+/) : [])
      .filter((c) => c && !GENERATED.test(c))
      .slice(0, 2);
    let text = tag + classes.map((c) => `.${cssEscape(c)}`).join("");
    const n = nthOfType(el);
    if (n) text += `:nth-of-type(${n})`;
    return { text, unique: false };
  }

  /** A CSS selector for `el`: an id or test attribute if it has one, else a short path. */
  function cssSelector(el) {
    if (!el || el.nodeType !== 1) return "";
    // An element in a shadow root is named within it, after its host's selector and ` >>> `
    // (no CSS selector reaches into a shadow root: `open-widget#ow >>> div.row > button.go`),
    // up to SHADOW_HOSTS hosts out.
    const roots = [];
    for (let node = el; node && roots.length <= SHADOW_HOSTS; ) {
      const parts = [];
      let top = node;
      for (let n = node; n && n.nodeType === 1 && parts.length < 5; n = n.parentElement) {
        const p = part(n);
        parts.unshift(p.text);
        top = n;
        if (p.unique || n.tagName === "BODY" || n.tagName === "HTML") break;
      }
      roots.unshift(parts.join(" > "));
      // The root the path is within: the document, or a shadow root (an id is unique only in it).
      let root = top;
      for (let up = 0; root.parentNode && up < MAX_DEPTH; up++) root = root.parentNode;
      node = root.nodeType === 11 && root.host ? root.host : null;
    }
    return roots.join(" >>> ");
  }
  const SHADOW_HOSTS = 4;
  const MAX_DEPTH = 1000; // ancestors walked to find an element's root

  /**
   * The text of `el`'s subtree, from text nodes (never innerText, which forces
   * layout), stopping after `cap` characters or 500 nodes.
   */
  function boundedText(el, cap) {
    let text = "";
    let nodes = 0;
    const stack = [el];
    while (stack.length && text.length <= cap && nodes++ < 500) {
      const node = stack.pop();
      if (node.nodeType === 3) text += node.nodeValue + " ";
      else if (node.nodeType === 1 && !/^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(node.tagName)) {
        for (let c = node.lastChild; c; c = c.previousSibling) stack.push(c);
      }
    }
    return text;
  }

  /** What the user saw on `el`: its text, the label of a button, alt or title; never a typed value. */
  function visibleText(el) {
    if (!el || el.nodeType !== 1) return "";
    const buttonLabel = el.tagName === "INPUT" && /^(button|submit|reset)$/i.test(el.type) ? el.value : "";
    const typed = el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT";
    const raw =
      buttonLabel ||
      (!typed && boundedText(el, limits.TEXT_CAP).trim()) ||
      el.getAttribute("aria-label") ||
      el.getAttribute("alt") ||
      el.getAttribute("title") ||
      "";
    const text = String(raw).replace(/\s+/g, " ").trim();
    return text.length > limits.TEXT_CAP ? text.slice(0, limits.TEXT_CAP) + "…" : text;
  }

  const selector = { cssSelector, visibleText };
  if (typeof module === "object" && module.exports) module.exports = selector;
  root.__gasoline = Object.assign(root.__gasoline || {}, { selector });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoic2VsZWN0b3IuanMiLCJzb3VyY2VzIjpbImdhc29saW5lLWV4dGVuc2lvbjovLy9saWIvc2VsZWN0b3IuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
