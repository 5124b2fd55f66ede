// A console call's arguments as one message, as Chrome's DevTools shows it:
// when the first argument is a string, its format specifiers take the
// arguments that follow (%s %d %i %f %o %O; %c and %_ take one and show
// nothing, so styles are dropped; %% is a percent sign; ANSI colour escapes
// are dropped), then the arguments left over are appended, separated by
// spaces. Works on the arguments a snapshot.js tape gives back as on plain values.
// Registry: reads limits, serialize; adds format.
(function (root) {
  const inNode = typeof module === "object" && module.exports;
  const limits = inNode ? require("./limits.js") : root.__gasoline.limits;
  const serialize = inNode ? require("./serialize.js") : root.__gasoline.serialize;
  const { formatArg, formatArgBeside, cut } = serialize;
  const stringify = JSON.stringify;
  const floor = Math.floor;

  // The specifiers DevTools knows (front_end/panels/console/ConsoleFormat.ts), and ANSI SGR escapes.
  const SPECIFIER = /%([%_Oocsdfi])|\x1B\[[\d;]*m/g;
  const HINT = /[%\x1B]/;

  /** `value` under %s: primitives as String() would show them, anything else as a logged argument (`shown`). */
  function asString(value, shown = formatArg) {
    switch (typeof value) {
      case "string":
        return value;
      case "number":
      case "boolean":
      case "undefined":
        return String(value);
      case "bigint":
        return `${value}n`;
      case "symbol":
        return value.toString();
    }
    return value === null ? "null" : shown(value);
  }

  /**
   * `fmt` with its specifiers replaced by `args` from index `from`:
   * {text, next} where `next` is the first argument not taken. `stacked`: as for formatMessage
   * (React 19 logs what a component threw as `console.error("%o\n\n%s", error, …)`).
   */
  function applyFormat(fmt, args, from, stacked) {
    if (!HINT.test(fmt)) return { text: fmt, next: from };
    const shown = stacked === undefined ? formatArg : (value) => formatArgBeside(value, stacked);
    let i = from;
    let out = "";
    let last = 0;
    SPECIFIER.lastIndex = 0;
    for (let m; (m = SPECIFIER.exec(fmt)); ) {
      out += fmt.slice(last, m.index);
      last = SPECIFIER.lastIndex;
      const spec = m[1];
      if (spec === undefined) continue; // an ANSI escape: a style, dropped
      if (spec === "%") {
        out += "%";
        continue;
      }
      if (i >= args.length) {
        out += m[0]; // nothing left to substitute: shown as written
        continue;
      }
      const value = args[i++];
      switch (spec) {
        case "s":
          out += asString(value, shown);
          break;
        case "d":
        case "i":
          out += typeof value === "number" ? String(floor(value)) : "NaN";
          break;
        case "f":
          out += typeof value === "number" ? String(value) : "NaN";
          break;
        case "o":
        case "O":
          out += typeof value === "string" ? stringify(value) : shown(value);
          break;
        // "c" (CSS) and "_" (hidden) take their argument and show nothing
      }
    }
    return { text: out + fmt.slice(last), next: i };
  }

  /**
   * The message of a console call: {text, truncated, size}, cut to MESSAGE_CAP. `stacked`: the
   * Error whose stack the entry carries apart (`stack`); given as an argument of its own, it is
   * said by its head line and its causes' (`TypeError: boom`), not its stack a second time.
   */
  function formatMessage(args, stacked) {
    const parts = [];
    let i = 0;
    if (args.length && typeof args[0] === "string") {
      const first = applyFormat(args[0], args, 1, stacked);
      parts.push(first.text);
      i = first.next;
    }
    for (; i < args.length; i++) parts.push(stacked === undefined ? formatArg(args[i]) : formatArgBeside(args[i], stacked));
    return cut(parts.join(" "), limits.MESSAGE_CAP);
  }

  const format = { applyFormat, formatMessage, asString };
  if (typeof module === "object" && module.exports) module.exports = format;
  root.__gasoline = Object.assign(root.__gasoline || {}, { format });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiZm9ybWF0LmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vbGliL2Zvcm1hdC5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
