/**
 * chrome.storage.local's shape over a Map. Values are copied as Chrome stores
 * them: as JSON-like values whose object keys come back sorted.
 */
export function memoryStorage() {
  const map = new Map();
  const copy = (v) =>
    Array.isArray(v)
      ? v.map(copy)
      : v && typeof v === "object"
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, copy(v[k])]))
        : v;
  return {
    map,
    get: async () => Object.fromEntries([...map].map(([k, v]) => [k, copy(v)])),
    set: async (items) => {
      for (const [k, v] of Object.entries(items)) map.set(k, copy(v));
    },
    remove: async (keys) => keys.forEach((k) => map.delete(k)),
  };
}
