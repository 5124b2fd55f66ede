// The JSON twins: every view reads through these (the same query path as
// observe); a refusal becomes an Error carrying the server's message.

export async function get(path) {
  const r = await fetch(path, { headers: { accept: "application/json" } });
  const text = await r.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = { error: text };
  }
  if (!r.ok) {
    const e = new Error(body.error || `${r.status} ${r.statusText}`);
    e.status = r.status;
    throw e;
  }
  return body;
}

/** `/api/rows/{what}` with observe's arguments. */
export function rows(what, args = {}) {
  return get(`/api/rows/${encodeURIComponent(what)}?${query(args)}`);
}

export function row(what, id) {
  return get(`/api/rows/${encodeURIComponent(what)}/${encodeURIComponent(id)}`);
}

export function overview() {
  return get("/api/overview");
}

export async function clearAll() {
  const r = await fetch("/api/clear", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ what: "all" }),
  });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || `${r.status}`);
  return body;
}

export function query(args) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null && v !== "") p.set(k, String(v));
  return p.toString();
}

/**
 * Up to `most` rows of `what` after `cursor` (following `has_more`), or the
 * newest `newest` rows when cursor is null. Resolves to { entries, cursor,
 * more (rows after these remain), older (rows before these remain) }.
 */
export async function after(what, args, cursor, newest = 1000, most = 5000) {
  if (cursor === null) {
    // The newest `newest` rows. An answer cut by its size holds the oldest part of that window
    // (`has_more`): the rest follows by cursor, so that the newest rows are never left out.
    let page = await rows(what, { ...args, offset: -newest, limit: newest });
    const older = page.offset > 0;
    const entries = [...page.entries];
    let last = page.cursor ?? 0;
    while (page.has_more && page.entries.length > 0 && entries.length < most) {
      page = await rows(what, { ...args, after_cursor: last, limit: 500 });
      entries.push(...page.entries);
      if (typeof page.cursor === "number") last = Math.max(last, page.cursor);
    }
    // Read to the end: every row up to the newest id the server had was considered.
    const cursor = page.has_more ? last : Math.max(page.newest_id ?? 0, last);
    return { entries, cursor, more: !!page.has_more, older };
  }
  // After a cursor, at most `newest` rows: a read held to the window's room (live.js) must not
  // read past it, or the rows past it push out the ones the person reads.
  const entries = [];
  let more = false;
  const limit = Math.min(newest, most);
  while (entries.length < limit) {
    const page = await rows(what, { ...args, after_cursor: cursor, limit: Math.min(500, limit - entries.length) });
    entries.push(...page.entries);
    if (typeof page.cursor === "number") cursor = Math.max(cursor, page.cursor);
    more = !!page.has_more;
    if (!more || page.entries.length === 0) break;
  }
  return { entries, cursor, more };
}

/**
 * The `limit` entries of `what` just before id `before` (an answer cut by its size holds the
 * newest part of what it was asked for: the rest is read before it); resolves to { entries, older }.
 */
export async function before(what, args, before, limit = 1000) {
  let entries = [];
  let page;
  do {
    page = await rows(what, { ...args, before_cursor: before, limit: limit - entries.length });
    entries = page.entries.concat(entries);
    before = page.prev_cursor ?? before;
  } while (page.has_older && page.entries.length > 0 && entries.length < limit);
  return { entries, older: !!page.has_older };
}
