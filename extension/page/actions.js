// Clicks, typing (after a pause), changes, submits and Enter/Escape/Tab →
// `actions`. Passive capture listeners that read nothing that forces layout;
// the selector and visible text are built later, in the outbox's slice.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.actions = function install({ core, outbox, serialize, selector, redact, limits }) {
    const { listen, setTimeout, clearTimeout } = core;
    const opts = { capture: true, passive: true };

    function target(event) {
      const t = event.composedPath ? event.composedPath()[0] : event.target;
      return t && t.nodeType === 1 ? t : event.target;
    }

    function fieldValue(el) {
      if (redact.isSecretInput(el)) return { value: redact.REDACTED, redacted: ["value"] };
      if (el.type === "checkbox" || el.type === "radio") return { checked: !!el.checked };
      const c = serialize.cut(el.value === undefined ? "" : el.value, limits.VALUE_CAP);
      return c.truncated ? { value: c.text, valueTruncated: true } : { value: c.text };
    }

    function action(type, el, extra) {
      outbox.emit("actions", () =>
        Object.assign(
          {
            type,
            selector: selector.cssSelector(el),
            tag: el && el.tagName ? el.tagName.toLowerCase() : undefined,
            url: location.href,
          },
          extra ? extra() : {},
        ),
      );
    }

    function on(type, handler) {
      listen(
        window,
        type,
        (e) => {
          try {
            handler(e);
          } catch {
            // ignore
          }
        },
        opts,
      );
    }

    on("click", (e) => {
      const el = target(e);
      const { clientX: x, clientY: y } = e;
      action("click", el, () => ({ text: selector.visibleText(el), x, y }));
    });
    // Typing is recorded once the user pauses, not per keystroke.
    const typing = new WeakMap();
    on("input", (e) => {
      const el = target(e);
      clearTimeout(typing.get(el));
      typing.set(el, setTimeout(() => action("input", el, () => ({ inputType: el.type, ...fieldValue(el) })), 400));
    });
    on("change", (e) => {
      const el = target(e);
      action("change", el, () => ({ inputType: el.type, ...fieldValue(el) }));
    });
    on("submit", (e) => {
      const form = target(e);
      action("submit", form, () => ({
        action: String(form.action || location.href),
        method: String(form.method || "get").toUpperCase(),
      }));
    });
    on("keydown", (e) => {
      if (e.key === "Enter" || e.key === "Escape" || e.key === "Tab") {
        const key = e.key;
        action("keydown", target(e), () => ({ key }));
      }
    });
  };
})();
