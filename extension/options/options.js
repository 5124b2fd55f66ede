// The options page: server URL (loopback only), capture switches per kind,
// redaction lists, and the sites turned on with their off switches.
import { kinds, scope } from "../background/lib.js";
import { KINDS, withDefaults, serverUrlOf, serverUrlProblem, listProblem, splitList } from "../background/settings.js";
import { renderSites } from "../popup/sites.js";

const { scopeWithDefaults } = scope;
const $ = (id) => document.getElementById(id);

async function load() {
  const { settings: stored } = await chrome.storage.local.get("settings");
  const s = withDefaults(stored);
  $("serverUrl").value = s.serverUrl;
  const box = $("capture");
  for (const kind of KINDS) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.id = `capture-${kind}`;
    input.checked = s.capture[kind];
    // The person's name for it, and the name an agent asks for (observe what=…).
    const name = document.createElement("code");
    name.textContent = kind;
    label.append(input, ` ${kinds.LABELS[kind]} `, name);
    box.appendChild(label);
  }
  $("redactHeaders").value = s.redactHeaders.join("\n");
  $("redactBodyKeys").value = s.redactBodyKeys.join("\n");
}

$("form").addEventListener("submit", async (e) => {
  e.preventDefault();
  // What was typed is checked, not a cleaned copy: credentials or a query are refused, not dropped.
  const serverUrl = serverUrlOf($("serverUrl").value);
  $("serverUrl").setAttribute("aria-invalid", serverUrl ? "false" : "true");
  if (!serverUrl) {
    // Captured pages go only to this machine: the server listens on loopback alone.
    said(`${serverUrlProblem($("serverUrl").value)} Nothing was saved.`, "error", "serverUrl");
    return;
  }
  const settings = {
    serverUrl,
    capture: Object.fromEntries(KINDS.map((k) => [k, $(`capture-${k}`).checked])),
    redactHeaders: splitList($("redactHeaders").value),
    redactBodyKeys: splitList($("redactBodyKeys").value),
  };
  for (const [field, what, list] of [["redactHeaders", "headers", settings.redactHeaders], ["redactBodyKeys", "keys", settings.redactBodyKeys]]) {
    const problem = listProblem(what, list);
    $(field).setAttribute("aria-invalid", problem ? "true" : "false");
    if (problem) return said(problem, "error", field);
  }
  await chrome.storage.local.set({ settings });
  $("serverUrl").value = serverUrl; // as stored
  said("Saved.", "ok");
});

/** The form's answer, in red when it refused, the field it is about given the focus. */
function said(text, kind, field) {
  $("saved").textContent = text;
  $("saved").className = kind;
  if (field) $(field).focus();
}
// An answer is about what was submitted: an edit since makes it stale.
$("form").addEventListener("input", () => said("", ""));

async function loadSites() {
  const { scope } = await chrome.storage.local.get("scope");
  renderSites($("sites"), $("no-sites"), scopeWithDefaults(scope).sites, turnSiteOff);
}

async function turnSiteOff(pattern) {
  await chrome.runtime.sendMessage({ type: "site", pattern, on: false });
  await loadSites();
}
chrome.storage.onChanged.addListener((changes, area) => area === "local" && changes.scope && loadSites());

load();
loadSites();
