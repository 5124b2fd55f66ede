// An Error as text, as DevTools shows it: its stack, then its `cause` chain
// ("Caused by: …") and the members of an AggregateError (or of any error with
// an `errors` array), indented under it. Bounded in depth and in errors shown,
// safe against cycles and against properties whose getters throw.
// Registry: reads limits; adds causes.
(function (root) {
  const limits = typeof module === "object" && module.exports ? require("./limits.js") : root.__gasoline.limits;

  /** `obj[key]`, or undefined when reading it throws. */
  function read(obj, key) {
    try {
      return obj[key];
    } catch {
      return undefined;
    }
  }

  function text(value) {
    try {
      return String(value);
    } catch {
      return "";
    }
  }

  /** "Name: message", or only "Name" for an empty message, as V8 starts a stack. */
  function head(e) {
    const m = messageOf(e);
    const n = nameOf(e);
    return m ? `${n}: ${m}` : n;
  }

  function messageOf(e) {
    const message = read(e, "message");
    return message === undefined || message === null ? "" : text(message);
  }

  // A class's name as JavaScript writes one (a minifier's `t` too).
  const CLASS_NAME = /^[A-Za-z_$][\w$]{0,99}$/;

  /**
   * The error's `name`; for a subclass that keeps Error's own (`class ApiError extends Error {}`),
   * its class's name, as DevTools names it.
   */
  function nameOf(e) {
    const name = read(e, "name");
    const n = name === undefined || name === null || name === "" ? "Error" : text(name);
    if (n !== "Error") return n;
    const made = read(e, "constructor");
    const cls = typeof made === "function" ? read(made, "name") : undefined;
    return typeof cls === "string" && cls !== "Error" && CLASS_NAME.test(cls) ? cls : n;
  }

  /** The error's own stack, starting with its head line. */
  function ownStack(e) {
    const h = head(e);
    const stack = read(e, "stack");
    if (typeof stack !== "string" || stack === "") return h;
    const renamed = headed(e, stack, h);
    return renamed.startsWith(h) ? renamed : `${h}\n${stack}`;
  }

  /**
   * `stack` with its head named as the error's class names it, where V8 began it with Error's own
   * name (`class ApiError extends Error {}`: `Error: API 422` → `ApiError: API 422`); else as it is.
   */
  function headed(e, stack, h = head(e)) {
    const m = messageOf(e);
    const plain = m ? `Error: ${m}` : "Error";
    return h !== plain && stack.startsWith(plain) ? h + stack.slice(plain.length) : stack;
  }

  /**
   * `e` with its causes and members, one error after the other. `stacks`:
   * each error's stack, or only its head line. `describe` gives the text of a
   * cause or member that is not an Error (a string, an object).
   */
  function describeError(e, { stacks = true, describe = text } = {}) {
    const lines = [];
    const seen = new Set();
    let left = 3 * limits.ERROR_MEMBERS; // errors shown in all: members of members multiply

    function walk(err, indent, label, depth) {
      if (!(err instanceof Error)) {
        let shown;
        try {
          shown = describe(err);
        } catch {
          shown = "[unserialisable]";
        }
        lines.push(indent + label + shown);
        return;
      }
      if (seen.has(err)) {
        lines.push(`${indent}${label}[Circular]`);
        return;
      }
      seen.add(err);
      left--;
      const own = (stacks ? ownStack(err) : head(err)).split("\n");
      lines.push(indent + label + own[0]);
      for (let i = 1; i < own.length; i++) lines.push(indent + own[i]);
      const members = read(err, "errors");
      const cause = read(err, "cause");
      const more = (Array.isArray(members) && members.length > 0) || cause !== undefined;
      if (more && (depth + 1 >= limits.CAUSE_DEPTH || left <= 0)) {
        lines.push(`${indent}… deeper causes not shown`);
        return;
      }
      if (Array.isArray(members)) {
        const shown = Math.min(members.length, limits.ERROR_MEMBERS);
        for (let i = 0; i < shown; i++) {
          if (left <= 0) {
            lines.push(`${indent}  … ${members.length - i} more errors`);
            break;
          }
          walk(read(members, i), `${indent}  `, `[${i}] `, depth + 1);
        }
        if (members.length > shown && left > 0) lines.push(`${indent}  … ${members.length - shown} more errors`);
      }
      if (cause !== undefined && left > 0) walk(cause, indent, "Caused by: ", depth + 1);
    }

    walk(e, "", "", 0);
    return lines.join("\n");
  }

  /** Whether describing `e` says more than its own stack: a cause or members. */
  function hasChain(e) {
    const members = read(e, "errors");
    return read(e, "cause") !== undefined || (Array.isArray(members) && members.length > 0);
  }

  const causes = { head, headed, describeError, hasChain };
  if (typeof module === "object" && module.exports) module.exports = causes;
  root.__gasoline = Object.assign(root.__gasoline || {}, { causes });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiY2F1c2VzLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vbGliL2NhdXNlcy5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
