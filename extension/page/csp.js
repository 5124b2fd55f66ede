// Content Security Policy violations (`securitypolicyviolation`, which the
// browser fires at the element or the document) → `logs` with
// `source: "csp"`, level error (warn for a report-only policy), and a message
// worded as Chrome's console words it ("Refused to load the script '…' because
// it violates the following Content Security Policy directive: "…"."). The
// event's fields are read on the page's call; the message is made later, in
// the outbox's slice.
// Knowing whether the page made a 'default' Trusted Types policy, and with which
// callbacks, takes a native-looking wrapper of `trustedTypes.createPolicy`.
// Registry: reads sources, core, outbox; adds sources.csp.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  const URI_CAP = 2048;

  // Fetch directives fall back to others when the policy does not set them.
  const SCRIPT = ["script-src", "default-src"];
  const STYLE = ["style-src", "default-src"];
  const FALLBACKS = {
    "script-src-elem": SCRIPT,
    "script-src-attr": SCRIPT,
    "style-src-elem": STYLE,
    "style-src-attr": STYLE,
    "worker-src": ["child-src", "script-src", "default-src"],
    "frame-src": ["child-src", "default-src"],
  };
  for (const d of ["script-src", "style-src", "child-src", "connect-src", "font-src", "img-src", "manifest-src", "media-src", "object-src", "prefetch-src"]) {
    FALLBACKS[d] = ["default-src"];
  }

  // What was refused, by the directive that refused a URL.
  const LOADS = {
    script: "load the script",
    style: "load the stylesheet",
    img: "load the image",
    font: "load the font",
    media: "load media from",
    object: "load plugin data from",
    manifest: "load manifest from",
    connect: "connect to",
    frame: "frame",
    child: "frame",
    worker: "create a worker from",
    prefetch: "prefetch content from",
    "form-action": "send form data to",
    "base-uri": "set the document's base URI to",
    "frame-ancestors": "display in a frame",
  };

  /** The directive `name` as the policy writes it ("script-src 'self'"), or undefined. */
  function directiveIn(policy, name) {
    for (const part of String(policy || "").split(";")) {
      const text = part.trim();
      if (text.split(/\s+/, 1)[0].toLowerCase() === name) return text;
    }
    return undefined;
  }

  /** The directive that applied: `{name, text}`, the effective one or what it fell back to. */
  function applied(v) {
    const wanted = String(v.effectiveDirective || v.violatedDirective || "").toLowerCase();
    for (const name of [wanted, ...(FALLBACKS[wanted] || [])]) {
      const text = directiveIn(v.originalPolicy, name);
      if (text) return { name, text };
    }
    return { name: wanted, text: String(v.violatedDirective || wanted) };
  }

  /**
   * The Trusted Type a sink wanted, from the violation's sample ("Element innerHTML|<i>x</i>",
   * "eval|1", "Window setTimeout|f()", "HTMLScriptElement src|/x.js"): a script's URL, a script, else HTML.
   */
  function trustedType(sample) {
    const sink = String(sample || "").split("|", 1)[0];
    if (/ src$|Worker constructor|ServiceWorkerContainer register|importScripts/.test(sink)) return "TrustedScriptURL";
    if (/^(eval|Function)\b|(^|\s)(setTimeout|setInterval)$|ScriptElement (text|textContent|innerText)$/.test(sink)) return "TrustedScript";
    return "TrustedHTML";
  }

  const CALLBACKS = { TrustedHTML: "createHTML", TrustedScript: "createScript", TrustedScriptURL: "createScriptURL" };

  /** Which Trusted Types a policy's options give a callback for, read without running a getter. */
  function callbacksOf(options) {
    const has = {};
    for (const [type, key] of Object.entries(CALLBACKS)) {
      const d = options && typeof options === "object" ? Object.getOwnPropertyDescriptor(options, key) : undefined;
      has[type] = !!d && (d.get !== undefined || typeof d.value === "function");
    }
    return has;
  }

  /** Chrome's console message for a violation `v` (the event's fields). */
  function message(v) {
    const blocked = String(v.blockedURI || "");
    const wanted = String(v.effectiveDirective || v.violatedDirective || "").toLowerCase();
    const { name, text } = applied(v);
    const quoted = `"${text}"`;
    const fallback = name !== wanted ? `'${wanted}' was not explicitly set, so '${name}' is used as a fallback.` : "";
    const prefix = v.disposition === "report" ? "[Report Only] " : "";
    const family = wanted.replace(/-(elem|attr)$/, "").replace(/-src$/, ""); // "script-src-elem" → "script"
    let said;
    if (blocked === "eval" || blocked === "wasm-eval") {
      const wasm = blocked === "wasm-eval";
      said =
        `Refused to ${wasm ? "compile or instantiate WebAssembly module" : "evaluate a string as JavaScript"} because ` +
        `'${wasm ? "wasm-unsafe-eval" : "unsafe-eval"}' is not an allowed source of script in the following Content Security Policy directive: ${quoted}.`;
      if (fallback) said += ` Note that ${fallback}`;
    } else if (blocked === "inline") {
      const what = wanted === "script-src-attr" ? "execute inline event handler" : family === "style" ? "apply inline style" : "execute inline script";
      said =
        `Refused to ${what} because it violates the following Content Security Policy directive: ${quoted}. ` +
        "Either the 'unsafe-inline' keyword, a hash ('sha256-...'), or a nonce ('nonce-...') is required to enable inline execution.";
      if (fallback) said += ` Note also that ${fallback}`;
    } else if (blocked === "trusted-types-sink") {
      // With a 'default' policy, Chrome says why it did not make the value: it returned nothing
      // (or threw), or it has no callback for the type.
      const type = trustedType(v.sample);
      said = `This document requires '${type}' assignment`;
      if (v.defaults) said += v.defaults[type] ? " and the 'default' policy failed to execute" : ` and no 'default' policy for '${type}' has been defined`;
      said += ".";
      if (v.disposition !== "report") said += " The action has been blocked.";
    } else if (blocked === "trusted-types-policy") {
      said = `Refused to create a TrustedTypePolicy named '${v.sample || ""}' because it violates the following Content Security Policy directive: ${quoted}.`;
    } else {
      const what = LOADS[wanted] || LOADS[family] || "load";
      const uri = blocked.length > URI_CAP ? `${blocked.slice(0, URI_CAP)}…` : blocked;
      said = `Refused to ${what} '${uri}' because it violates the following Content Security Policy directive: ${quoted}.`;
      if (fallback) said += ` Note that ${fallback}`;
    }
    return prefix + said;
  }

  G.sources.csp = function install({ core, outbox }) {
    const { listen, fill, invoke } = core;

    // The page's 'default' Trusted Types policy, as the page made it: the callbacks it has.
    let defaults;
    const Factory = globalThis.TrustedTypePolicyFactory;
    if (Factory && Factory.prototype) {
      fill(Factory.prototype, "createPolicy", (original) => ({
        createPolicy(name, options) {
          const policy = invoke(original, this, arguments);
          try {
            if (name === "default") defaults = callbacksOf(options);
          } catch {
            // never disturb the page
          }
          return policy;
        },
      }).createPolicy);
    }
    listen(
      document,
      "securitypolicyviolation",
      (e) => {
        try {
          // Strings the event already holds; nothing is computed on the page's time.
          const v = {
            blockedURI: e.blockedURI,
            violatedDirective: e.violatedDirective,
            effectiveDirective: e.effectiveDirective,
            originalPolicy: e.originalPolicy,
            disposition: e.disposition,
            sourceFile: e.sourceFile,
            lineNumber: e.lineNumber,
            columnNumber: e.columnNumber,
            sample: e.sample,
            defaults,
          };
          const url = location.href;
          outbox.emit("logs", () => ({
            level: v.disposition === "report" ? "warn" : "error",
            message: message(v),
            source: "csp",
            url,
            blockedURI: v.blockedURI ? String(v.blockedURI).slice(0, URI_CAP) : undefined,
            violatedDirective: v.violatedDirective || undefined,
            effectiveDirective: v.effectiveDirective || undefined,
            disposition: v.disposition || undefined,
            location: v.sourceFile ? `${v.sourceFile}:${v.lineNumber}:${v.columnNumber}` : undefined,
            sample: v.sample || undefined,
          }), v.disposition !== "report");
        } catch {
          // ignore
        }
      },
      true,
    );
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiY3NwLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9jc3AuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
