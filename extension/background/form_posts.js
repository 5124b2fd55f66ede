// The method of a document a form POST loaded, which the page cannot tell:
// Navigation Timing has no method, so a page-side document row has none, and a
// server-rendered app's login, or a form shown again with its errors, read as
// a GET of that URL. The page before says it: its `submit` action names the
// form's method and where it posts. When the same frame's next document is that
// URL, reached with no redirect, soon after, that document was the form's POST.
// A submit the page handled itself (`defaultPrevented`: a single-page app's
// form) or one posting into another window (`target`) answers nothing here.
// After a redirect (post, redirect, get) the document is the redirect's GET, and
// the row keeps no method: the page sees neither the POST nor its answer. Where
// the browser timed a redirect to it (a same-origin one), the row names the form's
// action it came after (`afterFormPost`): the 500 a person saw after "Create" was
// the GET the POST to /items/new redirected to.
// Pure but for the clock.

/** How long after its submit a frame's next document may be the form's answer. */
export const ANSWER_WITHIN_MS = 60_000;
/**
 * How much earlier than its submit a document may say it began and still be its answer: the
 * next document's time origin is its navigation's start, just after the submit, on the same clock.
 */
const CLOCK_SLACK_MS = 100;
/** Frames remembered at most (one pending submit each). */
const MAX_FRAMES = 200;

export class FormPosts {
  constructor(now = Date.now) {
    this.now = now;
    this.pending = new Map(); // "tabId:frameId" → {url, at}
  }

  /**
   * An `actions` entry of a page: a POST form's submit is remembered for its frame, with `page`,
   * the id of the document it came from (the relay's for the document's life).
   */
  submitted(tabId, frameId, entry, page) {
    if (!entry || entry.type !== "submit" || String(entry.method).toUpperCase() !== "POST") return;
    if (typeof entry.action !== "string" || !Number.isInteger(tabId)) return;
    // The page handled it (no navigation), or it posts into another window: this frame's next
    // document is not its answer.
    if (entry.defaultPrevented || entry.target !== undefined) return;
    const key = `${tabId}:${frameId}`;
    this.pending.delete(key); // the newest last, for the bound below
    this.pending.set(key, { url: withoutFragment(entry.action), at: this.now(), ts: Number(entry.ts), page });
    if (this.pending.size > MAX_FRAMES) this.pending.delete(this.pending.keys().next().value);
  }

  /**
   * A page's waterfall row, from the document `page`: the frame's document row, when it is the
   * form's answer, gets `method: "POST"`; when a redirect led to it, `afterFormPost`: the form's action.
   */
  documentRow(tabId, frameId, row, page) {
    if (!row || row.source !== "page" || row.initiatorType !== "navigation" || row.method) return;
    const key = `${tabId}:${frameId}`;
    const submit = this.pending.get(key);
    if (!submit) return;
    // The row of the document the form was in, sent after its submit (built at its load, handed
    // over as the page left): no answer to it, and it leaves the submit waiting. Known by the
    // document it came from; by its time where that is not known (a form submitted within
    // CLOCK_SLACK_MS of its page's start is then taken for its answer's).
    if (page !== undefined && submit.page !== undefined) {
      if (page === submit.page) return;
    } else if (Number.isFinite(submit.ts) && Number.isFinite(row.ts) && row.ts < submit.ts - CLOCK_SLACK_MS) return;
    this.pending.delete(key); // one document answers a submit, whatever it is
    if (this.now() - submit.at > ANSWER_WITHIN_MS) return;
    const redirected = row.phases && row.phases.redirect > 0;
    if (redirected) row.afterFormPost = submit.url;
    else if (withoutFragment(row.url) === submit.url) row.method = "POST";
  }

  /** A closed tab's frames are forgotten. */
  closed(tabId) {
    for (const key of [...this.pending.keys()]) if (key.startsWith(`${tabId}:`)) this.pending.delete(key);
  }
}

function withoutFragment(url) {
  const s = String(url);
  const at = s.indexOf("#");
  return at < 0 ? s : s.slice(0, at);
}
