// Clicks, typing (after a pause), changes, submits and Enter/Escape/Tab →
// `actions`. Passive capture listeners on `window`, added at document_start
// before any page script, so they run before every handler of the page: the
// target's selector, tag and text (from its text nodes, bounded: nothing that
// forces layout) are taken then, before a handler can re-render or remove it.
// Registry: reads sources, core, outbox, serialize, selector, redact, limits; adds sources.actions.
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

    // A field once secret stays secret: a "show password" button makes it type=text while it
    // still holds the password. Marked when focused or typed in, and whenever its value is read.
    const secretFields = core.weakSet();
    const markSecret = (el) => {
      if (el && typeof el === "object" && !secretFields.has(el) && redact.isSecretInput(el)) secretFields.add(el);
    };

    function fieldValue(el) {
      markSecret(el);
      if (secretFields.has(el)) return { value: redact.REDACTED, redacted: ["value"] };
      if (el.type === "checkbox" || el.type === "radio") return { checked: !!el.checked };
      // Typing in a closed shadow root reaches us as its host's event: the host holds no value
      // (unless it is a form-associated element that says one), and "" would be an untrue one.
      if (el.value === undefined || el.value === null) return {};
      const c = serialize.cut(el.value, limits.VALUE_CAP);
      return c.truncated ? { value: c.text, valueTruncated: true } : { value: c.text };
    }

    /** What the user acted on, as it is now: the page's handlers have not run yet. */
    function describe(el) {
      return {
        selector: selector.cssSelector(el),
        tag: el && el.tagName ? el.tagName.toLowerCase() : undefined,
        url: location.href,
      };
    }

    /**
     * Queues an action; `fields` were all read at the event, the entry is built later. `event`: one
     * the page made itself (`element.click()`, `dispatchEvent`), not the user, says so. `after`:
     * fields read when the entry is built, once the page's handlers have run.
     */
    function action(type, described, fields, event, after) {
      const synthetic = event && event.isTrusted === false ? { synthetic: true } : undefined;
      outbox.emit("actions", () => Object.assign({ type }, described, fields, synthetic, after && after()));
    }

    /** A form's own `action`, `method` or `target`, which a field of that name would hide (`<input name="action">`). */
    const Form = typeof HTMLFormElement === "function" ? HTMLFormElement : null;
    const formGetters = {};
    for (const name of ["action", "method", "target"]) {
      const d = Form && Object.getOwnPropertyDescriptor(Form.prototype, name);
      if (d && typeof d.get === "function") formGetters[name] = d.get;
    }
    function formProperty(form, name) {
      return formGetters[name] && form instanceof Form ? core.apply(formGetters[name], form, []) : form[name];
    }

    function on(type, handler, where = window) {
      listen(
        where,
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

    // `change` and `submit` are not composed: one inside a shadow root (a web component's form)
    // never reaches `window`. Each open shadow root a user's event passes through (a focus, a
    // keystroke, a click: what comes before a change or a submit) gets the two listeners once.
    // An event seen before is not taken again: a slotted field's change passes through a root
    // on its way to `window`. A closed root's events are its host's to us; its forms are not seen.
    const heardRoots = core.weakSet();
    const taken = core.weakSet();
    const unseen = (e) => {
      if (taken.has(e)) return false;
      taken.add(e);
      return true;
    };
    function hearRoots(e) {
      const path = e.composedPath ? e.composedPath() : [];
      for (let i = 0; i < path.length; i++) {
        const node = path[i];
        if (node && node.nodeType === 11 && node.host && !heardRoots.has(node)) {
          heardRoots.add(node);
          on("change", changed, node);
          on("submit", submitted, node);
        }
      }
    }

    // Typing is recorded once the user pauses, not per keystroke: the element is
    // described at the first keystroke of a burst, its value read at the pause, and the
    // entry dated at that first keystroke (what the typing set off, a search per keystroke,
    // comes after it, as it did). Any other action ends the burst first (the pause has not
    // come when a form is sent right after typing), so that actions arrive in the order
    // they happened: the typing, then the submit.
    let burst = null; // {el, timer, described, first, began}: the typing not recorded yet
    function typed() {
      const b = burst;
      if (b === null) return;
      burst = null;
      clearTimeout(b.timer);
      action("input", b.described, { inputType: b.el.type, ...fieldValue(b.el), ts: b.began }, b.first);
    }
    on("focusin", (e) => {
      hearRoots(e);
      markSecret(target(e));
    });
    on("input", (e) => {
      hearRoots(e);
      const el = target(e);
      markSecret(el);
      if (burst !== null && burst.el !== el) typed(); // another field: that one's typing ended
      if (burst !== null) clearTimeout(burst.timer);
      else burst = { el, described: describe(el), first: e, began: core.now() };
      burst.timer = setTimeout(typed, 400);
    });
    on("click", (e) => {
      hearRoots(e);
      typed();
      const el = target(e);
      action("click", describe(el), { text: selector.visibleText(el), x: e.clientX, y: e.clientY }, e);
    });
    function changed(e) {
      if (!unseen(e)) return;
      typed();
      const el = target(e);
      action("change", describe(el), { inputType: el.type, ...fieldValue(el) }, e);
    }
    function submitted(e) {
      if (!unseen(e)) return;
      typed();
      const form = target(e);
      // The button that submitted may post elsewhere, otherwise or into another window
      // (formaction, formmethod, formtarget).
      const by = e.submitter && e.submitter.nodeType === 1 ? e.submitter : null;
      const own = (name) => by !== null && by.hasAttribute(name);
      const method = String((own("formmethod") ? by.formMethod : formProperty(form, "method")) || "get").toUpperCase();
      // An htmx form (`hx-post="/fragments/notes"`, on it or its button) is sent by htmx's XHR,
      // its own handler keeping the page: where htmx sends it, not the form's own action.
      const hx = htmxRequest(by) || htmxRequest(form);
      let fields;
      if (hx) {
        fields = hx;
      } else if (method === "DIALOG") {
        // No request: the form closes the dialog it is in (nothing, outside one).
        const dialog = typeof form.closest === "function" ? form.closest("dialog") : null;
        fields = { method, ...(dialog ? { dialog: selector.cssSelector(dialog) } : undefined) };
      } else {
        const where = String((own("formtarget") ? by.formTarget : formProperty(form, "target")) || "");
        fields = {
          action: String((own("formaction") && by.formAction) || formProperty(form, "action") || location.href),
          method,
          ...(where && where !== "_self" ? { target: where } : undefined),
        };
      }
      // A page that handles the submit itself (a single-page app's form) prevents the browser's
      // navigation; its handlers have run by the time the entry is built.
      action("submit", describe(form), fields, e, () => (e.defaultPrevented ? { defaultPrevented: true } : undefined));
    }
    on("change", changed);

    const HX_VERBS = ["post", "put", "patch", "delete", "get"];
    /** The request htmx makes of a submit on `el` (`hx-post`, `data-hx-post`…): its method and URL, `via: "htmx"`. */
    function htmxRequest(el) {
      if (el === null || typeof el.getAttribute !== "function") return null;
      for (let i = 0; i < HX_VERBS.length; i++) {
        const url = el.getAttribute(`hx-${HX_VERBS[i]}`) ?? el.getAttribute(`data-hx-${HX_VERBS[i]}`);
        if (url === null) continue;
        let action = location.href;
        try {
          action = new URL(url || location.href, document.baseURI).href;
        } catch {
          // a URL htmx could not send to either: the page's, as htmx's own fallback
        }
        return { action, method: HX_VERBS[i].toUpperCase(), via: "htmx" };
      }
      return null;
    }
    on("submit", submitted);
    on("keydown", (e) => {
      hearRoots(e);
      if (e.key !== "Enter" && e.key !== "Escape" && e.key !== "Tab") return;
      typed();
      action("keydown", describe(target(e)), { key: e.key }, e);
    });
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiYWN0aW9ucy5qcyIsInNvdXJjZXMiOlsiZ2Fzb2xpbmUtZXh0ZW5zaW9uOi8vL3BhZ2UvYWN0aW9ucy5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
