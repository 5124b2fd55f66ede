// Interaction to Next Paint as web-vitals defines it (onINP.ts): Event Timing
// entries grouped by `interactionId` (an interaction's latency is its longest
// entry), the 10 longest interactions kept, and the value the longest one after
// ignoring one per 50 interactions (a 98th percentile for busy pages, the
// worst for the rest). Pure, so the unit tests run it; vitals.js feeds it.
// Registry: reads nothing; adds inp.
(function (root) {
  const MAX_KEPT = 10; // enough for 500 interactions at one ignored per 50
  const PER_IGNORED = 50;
  // web-vitals' default: events shorter than 40 ms are not reported by the
  // observer (16 ms is the browser's minimum); `first-input` comes regardless.
  const DURATION_THRESHOLD = 40;

  /** One page's interactions (a new one after each soft navigation). */
  function createInp() {
    let longest = []; // {id, latency}, longest first, at most MAX_KEPT
    const byId = new Map();

    /** Counts an Event Timing or first-input entry; entries without an interaction are ignored. */
    function add(entry) {
      const id = entry && entry.interactionId;
      const duration = entry && entry.duration;
      if (!id || typeof duration !== "number" || !Number.isFinite(duration)) return;
      const existing = byId.get(id);
      const shortest = longest[longest.length - 1];
      if (!existing && longest.length >= MAX_KEPT && duration <= shortest.latency) return;
      if (existing) existing.latency = Math.max(existing.latency, duration);
      else {
        const interaction = { id, latency: duration };
        byId.set(id, interaction);
        longest.push(interaction);
      }
      longest.sort((a, b) => b.latency - a.latency);
      for (const gone of longest.splice(MAX_KEPT)) byId.delete(gone.id);
    }

    /**
     * INP given how many interactions the page had (all of them, also those
     * below the threshold): null before the first one.
     */
    function value(interactionCount) {
      if (!longest.length) return null;
      const count = Number.isFinite(interactionCount) ? Math.max(interactionCount, 0) : longest.length;
      return longest[Math.min(longest.length - 1, Math.floor(count / PER_IGNORED))].latency;
    }

    return { add, value, size: () => longest.length };
  }

  /**
   * How many interactions the page had when `performance.interactionCount` is
   * missing: interaction ids grow by 7 per interaction (web-vitals' polyfill),
   * so the span of the ids seen counts the short ones between them too.
   */
  function createInteractionCounter() {
    let min = Infinity;
    let max = 0;
    return {
      add(entry) {
        const id = entry && entry.interactionId;
        if (!id) return;
        min = Math.min(min, id);
        max = Math.max(max, id);
      },
      count: () => (max ? (max - min) / 7 + 1 : 0),
    };
  }

  const inp = { createInp, createInteractionCounter, DURATION_THRESHOLD, PER_IGNORED, MAX_KEPT };
  if (typeof module === "object" && module.exports) module.exports = inp;
  root.__gasoline = Object.assign(root.__gasoline || {}, { inp });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiaW5wLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vbGliL2lucC5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
