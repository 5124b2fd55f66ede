// The options page: server URL, capture switches per kind, redaction lists.
const { KINDS, withDefaults, normalizeUrl, splitList } = globalThis.GasolineSettings;
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
    label.append(input, ` ${kind}`);
    box.appendChild(label);
  }
  $("redactHeaders").value = s.redactHeaders.join("\n");
  $("redactBodyKeys").value = s.redactBodyKeys.join("\n");
}

$("form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const serverUrl = normalizeUrl($("serverUrl").value);
  if (!serverUrl) {
    $("saved").textContent = "The server URL must be an http:// address, e.g. http://127.0.0.1:7890";
    return;
  }
  const settings = {
    serverUrl,
    capture: Object.fromEntries(KINDS.map((k) => [k, $(`capture-${k}`).checked])),
    redactHeaders: splitList($("redactHeaders").value),
    redactBodyKeys: splitList($("redactBodyKeys").value),
  };
  await chrome.storage.local.set({ settings });
  $("saved").textContent = "Saved.";
});

load();
