// A frame that routes with pushState, as Storybook's story frame goes from one story to the next
// without loading a document: the entries it sends after the route changed name the frame by its
// new URL (Chrome's own idea of the frame's URL stays the document's first), and a request a story
// made before the frame went on to the next one is named by the story that made it, though its
// row and body are sent after. Called by run.mjs
// with the running browser and server; `routedFrameRoute` serves the pages from run.mjs's server.
import assert from "node:assert/strict";

/** Serves the pages; false for any other path. */
export function routedFrameRoute(req, res, url) {
  const html = (body) => {
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
    res.end(`<!doctype html><meta charset="utf-8">${body}`);
  };
  if (url.pathname === "/stories") {
    html(`<title>stories</title><iframe id="story" src="/story-frame?id=broken"></iframe>`);
  } else if (url.pathname === "/story-frame") {
    html(`<title>story</title><script>
      console.log("story rendered", location.search);
      window.goTo = (id) => { history.pushState(null, "", "/story-frame?id=" + id); console.log("story rendered", location.search); };
      // A story's request under way as the frame goes on to the next story, as Storybook's preview
      // does with replaceState.
      window.leaveDuring = async (id) => {
        const answer = fetch("/story-api?slow=1").then((r) => r.text());
        history.replaceState(null, "", "/story-frame?id=" + id);
        return answer;
      };
    </script>`);
  } else if (url.pathname === "/story-api") {
    setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      res.end('{"stats":"slow"}');
    }, 300);
  } else {
    return false;
  }
  return true;
}

export async function routedFramePage({ context, client, all, waitFor, log, origin }) {
  const tab = await context.newPage();
  await tab.goto(`${origin}/stories`);
  const frame = await waitFor("the story frame", async () => tab.frames().find((f) => f.url().includes("/story-frame")));
  await waitFor("the first story's log", async () =>
    (await all(client, "logs")).some((e) => e.message === "story rendered ?id=broken"),
  );
  await frame.evaluate(() => window.goTo("normal"));
  const logs = await waitFor("the second story's log", async () => {
    const l = (await all(client, "logs")).filter((e) => e.message.startsWith("story rendered"));
    return l.some((e) => e.message === "story rendered ?id=normal") && l;
  });
  const byStory = Object.fromEntries(logs.map((e) => [e.message.split("?id=")[1], e]));
  assert.equal(byStory.broken.frameUrl, `${origin}/story-frame?id=broken`, JSON.stringify(byStory.broken));
  assert.equal(byStory.normal.frameUrl, `${origin}/story-frame?id=normal`, JSON.stringify(byStory.normal));
  assert.equal(byStory.normal.frameId, byStory.broken.frameId, "the same frame");
  log("a frame that routes with pushState is named by its new URL");
  await frame.evaluate(() => window.leaveDuring("third"));
  const made = (e) => e.url === `${origin}/story-api?slow=1`;
  const [row, body] = await waitFor("the slow request's row and body", async () => {
    const found = [(await all(client, "network_waterfall")).find(made), (await all(client, "network_bodies")).find(made)];
    return found.every(Boolean) && found;
  });
  for (const entry of [row, body]) {
    assert.equal(entry.frameUrl, `${origin}/story-frame?id=normal`, `the story that made it: ${JSON.stringify(entry)}`);
  }
  log("a request a story made before the frame went on is named by that story");
  await tab.close();
}
