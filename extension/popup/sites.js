// The list of sites the person turned on, each with its off switch: shared by
// the popup and the options page. Turning one off gives its permission back and
// stops capture in its open tabs at once (the worker does both).
import { scope } from "../background/lib.js";

const { patternHost } = scope;

/**
 * Fills `list` (a <ul>) with `sites`; `empty` shows when there are none; `turnOff(pattern)` turns a
 * site off and draws the page again. The popup asks again every second: a list that has not changed is left as it is, so
 * that the switch a keyboard (or a screen reader) is on keeps its focus.
 */
export function renderSites(list, empty, sites, turnOff) {
  const shown = JSON.stringify(sites);
  if (list.dataset.shown === shown) return;
  list.dataset.shown = shown;
  list.replaceChildren();
  empty.hidden = sites.length > 0;
  for (const pattern of sites) {
    const li = document.createElement("li");
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.checked = true;
    input.dataset.site = pattern;
    input.addEventListener("change", async () => {
      if (input.checked) return;
      input.disabled = true;
      await turnOff(pattern);
    });
    label.append(input, ` ${patternHost(pattern)} (${pattern.split("://")[0]})`);
    li.appendChild(label);
    list.appendChild(li);
  }
}
