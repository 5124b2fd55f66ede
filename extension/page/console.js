// The console → `logs`, as DevTools shows it. On the page's call a wrapper
// takes an Error for the call site (3 frames; its stack is read later) and a
// bounded copy of the arguments (lib/snapshot.js), so an object changed
// after logging is recorded as it was; the message (format specifiers applied:
// lib/format.js), the call site (lib/callsite.js) and tables (lib/table.js)
// are made later, when the outbox builds the entry.
//
// log/info/warn/error/debug: the formatted message, its level.
// trace, dir, dirxml, table, count, countReset, time, timeLog, timeEnd, group,
// groupCollapsed, assert: an entry with `method` naming the call, as DevTools
// would print it ("label: 3", "label: 12.3 ms", the table's rows, the group's
// label, "Assertion failed: …"), and DevTools' warnings for a count or timer
// label that does not exist. Entries made inside console.group carry `group`:
// the labels of the open groups, outermost first.
// Registry: reads sources, format, table, callsite, snapshot, core, outbox, serialize, redact, limits, consumed; adds sources.console.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.console = function install({ core, outbox, serialize, redact, limits }) {
    const { apply, fill, Error, perfNow } = core;
    // lib/ files only the console uses (loaded with the others, kept by this closure).
    const { format, table, callsite, snapshot } = G;
    const { cut, formatArg } = serialize;
    const { take, values } = snapshot;
    // The call site's callers kept beside it (`callers`): a library that wraps the console (an
    // error tracker's breadcrumbs, Next.js's dev log forwarding) is the call site of every call;
    // the server finds the page's own frame among these by the source maps' ignore lists.
    const CALLERS = 3;
    const SITE_FRAMES = 2 + CALLERS; // the wrapper, the page's caller and its callers
    const OURS = "gasoline://page/console.js"; // see the end of this file
    // Which page URL the call was made on (core.pageUrl's count), kept on its call site: the entry
    // is built later, by when a router may have moved the page on (a log just before a pushState
    // is the old route's).
    const PAGE_URL = Symbol("page url");
    const pageUrl = core.pageUrl;

    const counts = new Map(); // label → count
    const timers = new Map(); // label → start (performance.now())
    let groups = []; // open groups, outermost first: replaced on change, never mutated, so entries keep theirs
    let deeper = 0; // groups open past GROUP_DEPTH
    let busy = false; // a getter read while copying arguments may log: that call is not recorded

    /** `map.set(key, value)`, forgetting the oldest key past LABELS keys. */
    function remember(map, key, value) {
      if (!map.has(key) && map.size >= limits.LABELS) map.delete(map.keys().next().value);
      map.set(key, value);
    }

    function labelOf(value) {
      return cut(value === undefined ? "default" : String(value), limits.LABEL_CAP).text;
    }

    function stackOf(site) {
      try {
        return site.stack;
      } catch {
        return undefined;
      }
    }

    /** A whole stack without our own frames, under `head` (console.trace, assert). */
    function pageStack(site, head) {
      const stack = stackOf(site);
      if (typeof stack !== "string") return undefined;
      const frames = stack.split("\n").slice(1).filter((line) => !line.includes(OURS));
      return cut([head, ...frames].join("\n"), limits.MESSAGE_CAP).text;
    }

    const message = (s) => cut(s, limits.MESSAGE_CAP);

    /** A group's label: {text, truncated, size}, made once for the group's entry and those inside it. */
    function groupMessage(frame) {
      if (frame.msg === undefined) {
        const args = values(frame.tape);
        frame.msg = args.length ? format.formatMessage(args) : message("console.group");
      }
      return frame.msg;
    }
    const groupLabel = (frame) => cut(groupMessage(frame).text, limits.LABEL_CAP).text;

    /** The entry's common part; `msg` is {text, truncated, size}. */
    function entryOf(level, method, msg, site, path) {
      const entry = { level, message: msg.text, source: "console", url: site ? pageUrl.at(site[PAGE_URL]) : location.href };
      if (method) entry.method = method;
      if (msg.truncated) Object.assign(entry, { messageTruncated: true, messageSize: msg.size });
      const [where, ...callers] = callsite.callSites(stackOf(site), 1 + CALLERS);
      if (where) entry.location = where;
      if (callers.length) entry.callers = callers.join("\n");
      if (path.length) entry.group = path.map(groupLabel);
      return entry;
    }

    /** Queues an entry whose message is `text(policy)`, made later. */
    function emit(level, method, site, text, extra) {
      const path = groups;
      outbox.emit(
        "logs",
        (policy) => {
          const made = text(policy);
          const entry = entryOf(level, method, made.msg || made, site, path);
          return extra ? Object.assign(entry, extra(made)) : entry;
        },
        level === "error",
      );
    }

    const warn = (method, site, text) => emit("warn", method, site, () => message(text));

    /** dirxml, and table of what is not tabular: the arguments, formatted. */
    const logged = (level, method) => (args, site) => {
      const tape = take(args);
      const path = groups;
      outbox.emit("logs", () => buildLogged(level, method, site, path, tape), level === "error");
    };
    /** The entry of log/info/warn/error/debug (and the methods logging like them), when built. */
    function buildLogged(level, method, site, path, tape) {
      const args = values(tape);
      // The logged Error's stack is the entry's `stack`; the message names it by its head line.
      const stack = serialize.stackOf(args);
      const error = stack ? serialize.errorOf(args) : undefined;
      const entry = entryOf(level, method, format.formatMessage(args, error), site, path);
      if (stack) entry.stack = stack;
      // A logged SyntaxError of a body read as JSON that was none (a data library's caught error):
      // which response, as for one thrown.
      const jsonFrom = error && G.consumed ? G.consumed.jsonFrom(error) : undefined;
      if (jsonFrom) entry.jsonFrom = jsonFrom;
      return entry;
    }

    const handlers = {
      dirxml: logged("log", "dirxml"),
      trace(args, site) {
        const tape = take(args);
        emit("debug", "trace", site, () => (tape.length ? format.formatMessage(values(tape)) : message("console.trace")), () => ({
          stack: pageStack(site, "console.trace"),
        }));
      },
      dir(args, site) {
        const tape = take([args[0]]);
        emit("log", "dir", site, () => message(formatArg(values(tape)[0])));
      },
      table(args, site) {
        const rows = table.capture(args[0], args[1]);
        if (!rows) return logged("log", "table")(args, site); // not tabular: logged as is, as DevTools does
        emit(
          "log",
          "table",
          site,
          (policy) => {
            const t = table.text(rows, (name) => redact.isSecretKey(name, policy));
            return { msg: message(t.text), redacted: t.redacted };
          },
          (made) => (made.redacted.length ? { redacted: made.redacted } : undefined),
        );
      },
      count(args, site) {
        const label = labelOf(args[0]);
        const n = (counts.get(label) || 0) + 1;
        remember(counts, label, n);
        emit("log", "count", site, () => message(`${label}: ${n}`), () => ({ count: n }));
      },
      countReset(args, site) {
        const label = labelOf(args[0]);
        if (counts.has(label)) counts.set(label, 0);
        else warn("countReset", site, `Count for '${label}' does not exist`);
      },
      time(args, site) {
        const label = labelOf(args[0]);
        if (timers.has(label)) warn("time", site, `Timer '${label}' already exists`);
        else remember(timers, label, perfNow());
      },
      timeLog(args, site) {
        const now = perfNow();
        const label = labelOf(args[0]);
        if (!timers.has(label)) return warn("timeLog", site, `Timer '${label}' does not exist`);
        const elapsed = now - timers.get(label);
        const tape = take(args); // the label too: cheaper than a slice, skipped when built
        emit("log", "timeLog", site, () =>
          message([`${label}: ${+elapsed.toFixed(3)} ms`, ...values(tape).slice(1).map(formatArg)].join(" ")),
        );
      },
      timeEnd(args, site) {
        const now = perfNow();
        const label = labelOf(args[0]);
        if (!timers.has(label)) return warn("timeEnd", site, `Timer '${label}' does not exist`);
        const elapsed = now - timers.get(label);
        timers.delete(label);
        emit("log", "timeEnd", site, () => message(`${label}: ${+elapsed.toFixed(3)} ms`));
      },
      group: opener("group"),
      groupCollapsed: opener("groupCollapsed"),
      groupEnd() {
        if (deeper > 0) deeper--;
        else if (groups.length) groups = groups.slice(0, -1);
      },
      assert(args, site) {
        const tape = take(args);
        emit(
          "error",
          "assert",
          site,
          () => {
            const rest = values(tape).slice(1);
            return message(rest.length ? `Assertion failed: ${format.formatMessage(rest).text}` : "Assertion failed");
          },
          () => ({ stack: pageStack(site, "Assertion failed") }),
        );
      },
    };

    function opener(method) {
      return (args, site) => {
        const frame = { tape: take(args), msg: undefined };
        emit("log", method, site, () => groupMessage(frame));
        if (groups.length < limits.GROUP_DEPTH) groups = groups.concat([frame]);
        else deeper++;
      };
    }

    // log/info/warn/error/debug, the methods pages call most: everything inline.
    const LEVELS = ["log", "info", "warn", "error", "debug"];
    for (const level of LEVELS) {
      fill(console, level, (original) => ({
        [level]() {
          if (!busy) {
            busy = true;
            try {
              // Only the caller's frames are needed: 4 frames instead of the default 10 cut the Error's cost.
              const limit = Error.stackTraceLimit;
              Error.stackTraceLimit = SITE_FRAMES;
              const site = new Error();
              Error.stackTraceLimit = limit;
              site[PAGE_URL] = pageUrl.now();
              const tape = take(arguments);
              const path = groups;
              outbox.emit("logs", () => buildLogged(level, undefined, site, path, tape), level === "error");
            } catch {
              // never let capture break logging
            }
            busy = false;
          }
          return apply(original, this, arguments);
        },
      })[level]);
    }

    // The others. How much stack each needs: none (groupEnd, a passing
    // assert), its caller, or the page's whole stack (trace, a failing assert).
    const FULL = { trace: true, assert: true };
    const needsSite = (method, args) => (method === "assert" ? !args[0] : method !== "groupEnd");
    for (const method of Object.keys(handlers)) {
      const handle = handlers[method];
      fill(console, method, (original) => ({
        [method]() {
          if (!busy) {
            busy = true;
            try {
              let site;
              if (needsSite(method, arguments)) {
                if (FULL[method]) site = new Error();
                else {
                  const limit = Error.stackTraceLimit;
                  Error.stackTraceLimit = SITE_FRAMES;
                  site = new Error();
                  Error.stackTraceLimit = limit;
                }
                site[PAGE_URL] = pageUrl.now();
              }
              if (method !== "assert" || site) handle(arguments, site);
            } catch {
              // never let capture break logging
            }
            busy = false;
          }
          return apply(original, this, arguments);
        },
      })[method]);
    }
  };
})();
// Named so that console messages made through the wrappers do not come from a
// chrome-extension:// script: Chromium captures and sends a full stack trace
// with every console message whose source is an extension script, which more
// than doubled the cost of each console.log.
//# sourceURL=gasoline://page/console.js
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiY29uc29sZS5qcyIsInNvdXJjZXMiOlsiZ2Fzb2xpbmUtZXh0ZW5zaW9uOi8vL3BhZ2UvY29uc29sZS5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
