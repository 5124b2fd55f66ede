// Following the capture live. The server's event stream (/api/events) says
// where each ring stands (its `id:` is those cursors, so a reconnecting
// EventSource resumes with Last-Event-ID); a Feed then fetches the rows after
// its own cursor through the JSON twin, one fetch at a time, so a row is
// shown once however often or late the events come, across server restarts.
import * as api from "./api.js";

/** Opens the stream; calls onCursors(data) per event and onState("live" | "reconnecting"). */
export function connect(onCursors, onState) {
  let source;
  let retry;
  const open = () => {
    source = new EventSource("/api/events");
    source.addEventListener("cursors", (e) => {
      onState("live");
      try {
        onCursors(JSON.parse(e.data));
      } catch (err) {
        console.error(err);
      }
    });
    source.addEventListener("error", () => {
      onState("reconnecting");
      // EventSource retries by itself; one that gave up (closed) is opened again.
      if (source.readyState === EventSource.CLOSED && !retry) {
        retry = setTimeout(() => {
          retry = undefined;
          open();
        }, 1000);
      }
    });
  };
  open();
  return () => source.close();
}

/** The newest rows of one `what` under fixed arguments, kept to a window of `max`. */
export class Feed {
  constructor(what, args, { max = 5000, first = 1000 } = {}) {
    this.what = what;
    this.kind = what === "errors" ? "logs" : what;
    this.args = args;
    this.max = max;
    this.first = first;
    this.rows = [];
    this.cursor = null;
    this.busy = null;
    this.again = false;
    this.dropped = 0;
    this.older = false;
    // Set while the person reads older rows (scrolled up, or sorted): a read that would drop
    // held rows waits, and `unread` says how many ids past the cursor wait with it.
    this.hold = false;
    this.unread = 0;
  }

  /** Fetches up to `n` rows older than the oldest held; resolves to how many came. */
  async loadOlder(n = 1000) {
    if (!this.older || !this.rows.length) return 0;
    const { entries, older } = await api.before(this.what, this.args, this.rows[0].id, n);
    const oldest = this.rows[0].id;
    const fresh = entries.filter((e) => e.id < oldest);
    this.rows = fresh.concat(this.rows);
    this.older = older;
    this.dropped = Math.max(0, this.dropped - fresh.length);
    // The window grows for what the person asked to see; new rows trim it back later.
    this.max = Math.max(this.max, this.rows.length);
    return fresh.length;
  }

  /**
   * Fetches what is new (the newest `first` rows the first time), up to the
   * stream's cursor `target` if given; resolves to the rows added. A feed far
   * behind (more than a first read) jumps to the newest rows instead of reading
   * every one in between: the page keeps a window, not every row.
   */
  async poll(target) {
    // A refusal (4xx: a value in the link or the filters the server does not take) is the
    // person's mistake, refused again however often it is asked: it is not asked again (a
    // change of filters makes new feeds). A network failure or a 5xx is tried again.
    if (this.refused) throw this.refused;
    if (target !== undefined) this.target = Math.max(this.target ?? 0, target);
    if (this.busy) {
      // One read at a time; a read asked for meanwhile runs after it, unless that one got there.
      this.again = true;
      await this.busy.catch(() => {});
      if (this.busy || (this.cursor !== null && this.target !== undefined && this.cursor >= this.target)) return [];
      return this.poll();
    }
    const run = async () => {
      let added = [];
      do {
        this.again = false;
        // Holding, what would not fit in the window is not read: reading it would drop the rows
        // the person reads (the oldest held) or jump past them. Ids past the cursor are an upper
        // bound of the rows waiting (a filter may match fewer); ids are the cursor.
        const waiting = this.cursor !== null && this.target !== undefined ? Math.max(0, this.target - this.cursor) : 0;
        if (this.hold && waiting > 0 && this.rows.length + waiting > this.max) {
          this.unread = waiting;
          break;
        }
        this.unread = 0;
        // More new rows than a first read: a person cannot read them as they come, so the
        // page shows the newest and leaves the rest to "Load older" (the ids are contiguous
        // from there, so nothing is lost or shown twice).
        const behind = !this.hold && this.cursor !== null && this.target !== undefined && this.target - this.cursor > this.first;
        if (this.cursor === null || behind) {
          const { entries, cursor, older } = await api.after(this.what, this.args, null, this.first);
          const known = this.rows.length ? this.rows[this.rows.length - 1].id : -1;
          const fresh = entries.filter((e) => e.id > known);
          // A gap when none of the newest rows is one already held (a filter may match few).
          const gap = behind && fresh.length === entries.length && (older || this.cursor < (entries[0]?.id ?? 0) - 1);
          if (gap) {
            this.dropped += this.rows.length;
            this.rows = [];
            this.older = true;
          } else if (!behind) this.older = older;
          this.cursor = cursor;
          this.rows = this.rows.concat(fresh);
          added = added.concat(fresh);
          continue;
        }
        let more;
        do {
          // Holding, no read goes past the window's room: rows that came while reading (a flood
          // still arriving) would otherwise push out the rows the person reads.
          const room = this.hold ? this.max - this.rows.length : this.first;
          if (room <= 0) {
            this.unread = Math.max(1, (this.target ?? this.cursor) - this.cursor);
            break;
          }
          const page = await api.after(this.what, this.args, this.cursor, Math.min(this.first, room));
          more = page.more;
          this.cursor = page.cursor;
          const known = this.rows.length ? this.rows[this.rows.length - 1].id : -1;
          const fresh = page.entries.filter((e) => e.id > known);
          this.rows = this.rows.concat(fresh);
          added = added.concat(fresh);
          if (this.rows.length > this.max) {
            this.dropped += this.rows.length - this.max;
            this.rows = this.rows.slice(this.rows.length - this.max);
            this.older = true;
          }
        } while (more);
      } while (this.again);
      if (added.length > this.max) added = added.slice(added.length - this.max);
      return added;
    };
    this.busy = run()
      .catch((e) => {
        if (e.status >= 400 && e.status < 500) this.refused = e;
        throw e;
      })
      .finally(() => {
        this.busy = null;
      });
    return this.busy;
  }
}
