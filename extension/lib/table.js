// console.table as text. `capture` copies the rows on the page's call (at most
// TABLE_ROWS of them and TABLE_VALUES values, as a snapshot.js tape); `text` lays them
// out when the entry is built, as a Markdown table with DevTools' columns:
// "(index)" (the array index or object key; "(iteration index)" for a Map or
// Set), then each property met in the rows (at most TABLE_COLUMNS; only the
// given ones when `columns` is passed), then "Value" for rows that are not
// objects. Cells are cut to TABLE_CELL characters, and only whole rows that
// fit in MESSAGE_CAP are shown; cells under a secret
// column or row name are redacted here (the text rules catch the rest).
// Registry: reads limits, serialize, snapshot; adds table.
(function (root) {
  const inNode = typeof module === "object" && module.exports;
  const limits = inNode ? require("./limits.js") : root.__gasoline.limits;
  const serialize = inNode ? require("./serialize.js") : root.__gasoline.serialize;
  const snapshot = inNode ? require("./snapshot.js") : root.__gasoline.snapshot;
  const isArray = Array.isArray;
  const REDACTED = "[redacted]";

  /** The rows of `data` as they are now, or null when `data` is not tabular (then it is logged as is). */
  function capture(data, columns) {
    if (data === null || typeof data !== "object") return null;
    const labels = [];
    const rows = []; // the page's values, copied below
    let total = 0;
    let iteration = false;
    if (isArray(data) || (ArrayBuffer.isView(data) && !(data instanceof DataView))) {
      total = data.length;
      for (let i = 0; i < total && i < limits.TABLE_ROWS; i++) {
        labels.push(String(i));
        rows.push(data[i]);
      }
    } else if (data instanceof Map || data instanceof Set) {
      iteration = true;
      total = data.size;
      const isMap = data instanceof Map;
      for (const item of isMap ? data.entries() : data.values()) {
        if (rows.length >= limits.TABLE_ROWS) break;
        const row = Object.create(null);
        if (isMap) row.Key = item[0];
        row.Values = isMap ? item[1] : item;
        labels.push(String(rows.length));
        rows.push(row);
      }
    } else {
      for (const key in data) {
        if (total++ >= limits.TABLE_ROWS) continue; // counted, not read
        const v = serialize.readProperty(data, key);
        labels.push(key);
        rows.push(v);
      }
    }
    const picked = isArray(columns) ? columns.slice(0, limits.TABLE_COLUMNS).map(String) : null;
    // Rows 0 deep, cells 1, what cells hold 2.
    return { labels, tape: snapshot.take(rows, limits.TABLE_VALUES, 3), total, iteration, columns: picked };
  }

  // A row that is an object (a `Bare` NaN or undefined is a value, shown in the Value column).
  const isObject = (v) => v !== null && typeof v === "object" && !(v instanceof serialize.Bare);

  function cell(value) {
    let s = typeof value === "string" ? value : serialize.plainJson(value);
    if (s === undefined) s = "";
    if (s.length > limits.TABLE_CELL) s = s.slice(0, limits.TABLE_CELL - 1) + "…";
    return s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n|\r/g, "\\n");
  }

  /**
   * The captured table as Markdown: {text, redacted}. `isSecret(name)` says
   * whether a column or row name holds secrets; `redacted` names them.
   */
  function text(table, isSecret = () => false) {
    const rows = snapshot.values(table.tape).map((value, i) => [table.labels[i], serialize.plain(value)]);
    let columns = table.columns;
    let valueColumn = false;
    if (!columns) {
      columns = [];
      const known = new Set();
      for (const [, value] of rows) {
        if (!isObject(value)) {
          valueColumn = true;
          continue;
        }
        for (const key of Object.keys(value)) {
          if (known.has(key) || columns.length >= limits.TABLE_COLUMNS) continue;
          known.add(key);
          columns.push(key);
        }
      }
    }
    const redacted = [];
    const secret = (name) => {
      if (!isSecret(name)) return false;
      if (!redacted.includes(`message.${name}`)) redacted.push(`message.${name}`);
      return true;
    };
    const header = [table.iteration ? "(iteration index)" : "(index)", ...columns];
    if (valueColumn) header.push("Value");
    const lines = [`| ${header.map(cell).join(" | ")} |`, `|${header.map(() => " --- ").join("|")}|`];
    let size = lines[0].length + lines[1].length;
    let shown = 0;
    for (const [index, value] of rows) {
      const hidden = secret(index);
      const cells = [cell(index)];
      for (const column of columns) {
        const has = isObject(value) && Object.prototype.hasOwnProperty.call(value, column);
        cells.push(!has ? "" : hidden || secret(column) ? REDACTED : cell(value[column]));
      }
      if (valueColumn) cells.push(isObject(value) ? "" : hidden ? REDACTED : cell(value));
      const line = `| ${cells.join(" | ")} |`;
      size += line.length + 1;
      if (size > limits.MESSAGE_CAP - 32) break; // whole rows only, and room to say how many are left
      lines.push(line);
      shown++;
    }
    if (table.total > shown) lines.push(`… ${table.total - shown} more rows`);
    return { text: lines.join("\n"), redacted };
  }

  const table = { capture, text };
  if (typeof module === "object" && module.exports) module.exports = table;
  root.__gasoline = Object.assign(root.__gasoline || {}, { table });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoidGFibGUuanMiLCJzb3VyY2VzIjpbImdhc29saW5lLWV4dGVuc2lvbjovLy9saWIvdGFibGUuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
