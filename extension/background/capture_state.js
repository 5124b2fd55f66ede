// Tells the server the capture in force (`PUT /capture`): the scope's match
// patterns, whether capture is paused, which tabs are deep, and the server's
// own origin. Sent at start, on every change and with every retry alarm, so a
// server started later (or on a new database) learns it; observe answers state
// it, and an empty answer about a page outside the scope says how to turn it on.
// Reports go one at a time, the newest state last; an unreachable server is
// not an error here (delivery reports outages), a refusal is logged once.
export class CaptureState {
  /**
   * @param {object} io
   * @param {(body: string) => Promise<{ok: boolean, status: number, text: () => Promise<string>}>} io.post
   * @param {(level: string, message: string) => void} io.log
   */
  constructor(io) {
    this.io = io;
    this.next = null; // the newest state not yet sent
    this.sending = false;
    this.refused = null; // the last refusal logged
  }

  report(state) {
    this.next = JSON.stringify(state);
    if (!this.sending) this.pump();
  }

  async pump() {
    this.sending = true;
    while (this.next !== null) {
      const body = this.next;
      this.next = null;
      try {
        const response = await this.io.post(body);
        if (!response.ok) {
          const why = `HTTP ${response.status} ${await response.text().catch(() => "")}`.trim();
          if (why !== this.refused) this.io.log("warn", `the server refused the capture state: ${why}`);
          this.refused = why;
        } else this.refused = null;
      } catch {
        // unreachable: the next change or alarm sends it again
      }
    }
    this.sending = false;
  }
}
