// Turning whatever a page logs into bounded text, without ever throwing:
// circular objects, DOM nodes, Errors with their stack, getters that throw,
// very long strings.
(function (root) {
  const limits = typeof module === "object" && module.exports ? require("./limits.js") : root.__gasoline.limits;

  /** Cuts `text` to `cap` characters: {text, truncated, size}. */
  function cut(text, cap) {
    const s = String(text);
    if (s.length <= cap) return { text: s, truncated: false, size: s.length };
    return { text: s.slice(0, cap), truncated: true, size: s.length };
  }

  function describeNode(node) {
    if (node.nodeType === 1) {
      const id = node.id ? `#${node.id}` : "";
      const cls = typeof node.className === "string" && node.className.trim()
        ? "." + node.className.trim().split(/\s+/).join(".")
        : "";
      return `<${node.tagName.toLowerCase()}${id}${cls}>`;
    }
    if (node.nodeType === 3) return `#text ${JSON.stringify(String(node.textContent).slice(0, 80))}`;
    if (node.nodeType === 9) return "#document";
    return `[${node.nodeName}]`;
  }

  function isNode(v) {
    return typeof Node === "function" && v instanceof Node;
  }

  function describeError(e) {
    const head = `${e.name || "Error"}: ${e.message}`;
    const stack = typeof e.stack === "string" ? e.stack : "";
    return stack.startsWith(head) ? stack : stack ? `${head}\n${stack}` : head;
  }

  /** A JSON-safe copy of `value`, bounded in depth, width and total size. */
  function toPlain(value, depth, state) {
    switch (typeof value) {
      case "string":
        return value.length > limits.MESSAGE_CAP ? value.slice(0, limits.MESSAGE_CAP) + "…" : value;
      case "number":
        return Number.isFinite(value) ? value : String(value);
      case "boolean":
        return value;
      case "undefined":
        return "undefined";
      case "bigint":
        return `${value}n`;
      case "symbol":
        return value.toString();
      case "function":
        return `[Function ${value.name || "anonymous"}]`;
    }
    if (value === null) return null;
    if (value instanceof Error) return describeError(value);
    if (isNode(value)) return describeNode(value);
    if (state.seen.has(value)) return "[Circular]";
    // Shared (not circular) references could otherwise multiply the work.
    if (depth >= limits.ARG_DEPTH || --state.budget < 0) return Array.isArray(value) ? "[Array]" : "[Object]";
    state.seen.add(value);
    try {
      if (Array.isArray(value)) {
        const out = value.slice(0, limits.ARG_KEYS).map((v) => toPlain(v, depth + 1, state));
        if (value.length > limits.ARG_KEYS) out.push(`… ${value.length - limits.ARG_KEYS} more`);
        return out;
      }
      if (value instanceof Map) return { "[Map]": toPlain([...value.entries()], depth + 1, state) };
      if (value instanceof Set) return { "[Set]": toPlain([...value.values()], depth + 1, state) };
      if (value instanceof Date) return isNaN(value) ? "Invalid Date" : value.toISOString();
      const out = {};
      let n = 0;
      for (const key in value) {
        if (n++ >= limits.ARG_KEYS) {
          out["…"] = "more keys";
          break;
        }
        let v;
        try {
          v = value[key];
        } catch (e) {
          v = `[getter threw ${e && e.name}]`;
        }
        out[key] = toPlain(v, depth + 1, state);
      }
      return out;
    } finally {
      state.seen.delete(value);
    }
  }

  /** One console argument as text: strings as they are, the rest as JSON. */
  function formatArg(value) {
    try {
      if (typeof value === "string") return value;
      if (value instanceof Error) return describeError(value);
      const plain = toPlain(value, 0, { seen: new Set(), budget: limits.ARG_NODES });
      return typeof plain === "string" ? plain : JSON.stringify(plain);
    } catch (e) {
      return `[unserialisable: ${e && e.message}]`;
    }
  }

  /** A console call's arguments as one bounded message. */
  function formatMessage(args) {
    const parts = [];
    for (const arg of args) parts.push(formatArg(arg));
    return cut(parts.join(" "), limits.MESSAGE_CAP);
  }

  /** Stack of the first Error among `args`, if any. */
  function stackOf(args) {
    for (const arg of args) if (arg instanceof Error && typeof arg.stack === "string") return arg.stack;
    return undefined;
  }

  const serialize = { cut, formatArg, formatMessage, stackOf, describeNode, describeError };
  if (typeof module === "object" && module.exports) module.exports = serialize;
  else root.__gasoline.serialize = serialize;
})(globalThis);
