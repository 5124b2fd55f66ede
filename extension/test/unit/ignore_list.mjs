// The last line of every page-world file (registration.js's PAGE_FILES): an inline
// source map that puts the whole file on the ignore list (ECMA-426 `ignoreList`, and
// `x_google_ignoreList`, the name DevTools read first). DevTools then leaves our
// frames out of the console's location of a message (a page's console.log, wrapped,
// would show our console.js as its source) and out of the stack traces it shows, as
// it does for a framework's own code. One mapping: every position of the file maps
// to the file's first line, which is all an ignore list needs.
export function ignoreListLine(file) {
  const map = {
    version: 3,
    file: file.split("/").pop(),
    sources: [`gasoline-extension:///${file}`],
    names: [],
    mappings: "AAAA",
    ignoreList: [0],
    x_google_ignoreList: [0],
  };
  return `//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString("base64")}`;
}
