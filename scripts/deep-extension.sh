#!/usr/bin/env bash
# Writes the deep build of the extension to DIR: the extension as it is, plus
# Chrome's `debugger` permission, which the popup's "Deep view of this tab"
# needs. Chrome lets no extension ask for that permission at run time (it
# cannot be optional: it implies access to every site), so the shipped
# extension does without it and the deep build holds it from install; Chrome
# then warns that it may "access the page debugger backend" and "read and
# change all your data on all websites". The deep build captures exactly what
# the shipped one does, and attaches the debugger only to the tabs you choose,
# only on sites in the capture scope (docs/capture.md).
#
#   scripts/deep-extension.sh ~/gasoline-deep    then chrome://extensions → remove the other copy →
#   Load unpacked → that folder, and `gasoline pair --reset` (another folder, another extension id)
set -euo pipefail
out="${1:?usage: scripts/deep-extension.sh DIR (a new or empty folder)}"
src="$(cd "$(dirname "$0")/../extension" && pwd)"
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "deep-extension: $out is not empty; name a new or empty folder" >&2
  exit 2
fi
mkdir -p "$out"
for entry in "$src"/*; do
  case "$(basename "$entry")" in node_modules | test | bench | package.json | package-lock.json) continue ;; esac
  cp -R "$entry" "$out/"
done
# The permissions list's first line, then "debugger" as its first entry.
awk '{ print } /^  "permissions": \[$/ { print "    \"debugger\"," }' "$src/manifest.json" >"$out/manifest.json"
if ! grep -q '^    "debugger",$' "$out/manifest.json"; then
  echo "deep-extension: could not add the debugger permission to $out/manifest.json" >&2
  exit 1
fi
echo "deep build written to $out: in chrome://extensions remove the Gasoline you had, then Developer mode → Load unpacked → $out."
echo "It has another extension id than a copy from another folder: run 'gasoline pair --reset' (with --db if you use one) so that the server trusts it."
