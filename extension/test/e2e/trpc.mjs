// A tRPC API as a page meets one: @trpc/server's own HTTP handler serves a real
// router (zod input, a procedure that throws NOT_FOUND) under /trpc/. The page
// calls it as @trpc/client's httpBatchLink does: the procedures of one tick in
// one request (`/trpc/greet,itemById?batch=1&input={"0":…,"1":…}` for queries,
// a POST with the inputs as its body for mutations). tRPC answers a batch in
// which some procedures failed and some did not with 207 Multi-Status, which no
// status counts as failed: an agent must find the failure among the errors,
// named by its procedure, and tell one /trpc request from the next by the
// procedures it called.
// Called by run.mjs with the running browser and server; `trpcRoute` serves
// /trpc/* and /trpc-page from run.mjs's server.
import assert from "node:assert/strict";
import { TRPCError, initTRPC } from "@trpc/server";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { z } from "zod";

import { assertOperationsNamed } from "./harness.mjs";

const t = initTRPC.create();
const router = t.router({
  greet: t.procedure.input(z.object({ name: z.string() })).query(({ input }) => ({ text: `Hello, ${input.name}` })),
  itemById: t.procedure.input(z.object({ id: z.number() })).query(({ input }) => {
    if (input.id !== 1) throw new TRPCError({ code: "NOT_FOUND", message: `item ${input.id} does not exist` });
    return { id: 1, name: "Kettle" };
  }),
  saveNote: t.procedure
    .input(z.object({ title: z.string().min(3, "title must be at least 3 characters") }))
    .mutation(({ input }) => ({ ok: true, title: input.title })),
});
const handler = createHTTPHandler({ router, basePath: "/trpc/" });

const PAGE = `<!doctype html><meta charset="utf-8"><title>trpc</title><p>tRPC</p>`;

/** Serves /trpc/* (tRPC's handler) and the page that calls it; false for any other path. */
export function trpcRoute(req, res, url) {
  if (url.pathname === "/trpc-page") {
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
    res.end(PAGE);
  } else if (url.pathname.startsWith("/trpc/")) {
    handler(req, res);
  } else {
    return false;
  }
  return true;
}

export async function trpcPage({ context, client, all, observe, waitFor, log, origin }) {
  const tab = await context.newPage();
  await tab.goto(`${origin}/trpc-page`);
  const tabId = await waitFor("the tRPC page's row", async () => (await all(client, "network_waterfall")).find((r) => r.url === `${origin}/trpc-page`)?.tabId);
  const answers = await tab.evaluate(async () => {
    // As httpBatchLink sends a tick's queries: one GET, the procedures joined, the inputs by index.
    const query = (calls) =>
      fetch(`/trpc/${calls.map(([name]) => name).join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify(Object.fromEntries(calls.map(([, input], i) => [i, input]))))}`).then(
        async (r) => [r.status, await r.json()],
      );
    // And a tick's mutations: one POST, the inputs by index as its body; this one through XHR.
    const mutate = (calls) =>
      new Promise((resolve) => {
        const xhr = new XMLHttpRequest();
        xhr.open("POST", `/trpc/${calls.map(([name]) => name).join(",")}?batch=1`);
        xhr.setRequestHeader("content-type", "application/json");
        xhr.onloadend = () => resolve([xhr.status, JSON.parse(xhr.responseText)]);
        xhr.send(JSON.stringify(Object.fromEntries(calls.map(([, input], i) => [i, input]))));
      });
    return [
      await query([["greet", { name: "dev" }]]),
      await query([
        ["greet", { name: "dev" }],
        ["itemById", { id: 99 }],
      ]),
      await mutate([
        ["saveNote", { title: "Groceries" }],
        ["saveNote", { title: "ab" }],
      ]),
    ];
  });
  // tRPC answered as it does: 200 when all went well, 207 for a batch with a failure among successes.
  assert.deepEqual(
    answers.map(([status, body]) => [status, body.map((r) => Object.keys(r)[0])]),
    [
      [200, ["result"]],
      [207, ["result", "error"]],
      [207, ["result", "error"]],
    ],
    JSON.stringify(answers).slice(0, 2000),
  );

  // The failures of the 207s are errors, each named by its procedure, with tRPC's code and message.
  const framework = await waitFor("tRPC's two failures answered 207 as errors", async () => {
    const found = (await observe(client, { what: "errors", tabId, fields: "all", limit: 100 })).entries.filter((e) => e.source === "framework");
    return found.length === 2 && found;
  });
  assert.deepEqual(
    framework.map((e) => [e.message, e.resourceUrl.split("?")[0]]),
    [
      ["tRPC: itemById failed: NOT_FOUND: item 99 does not exist (the batch of 2 answered 207)", `${origin}/trpc/greet,itemById`],
      ["tRPC: saveNote failed: BAD_REQUEST: title: title must be at least 3 characters (the batch of 2 answered 207)", `${origin}/trpc/saveNote,saveNote`],
    ],
  );

  // Each /trpc request names the procedures it called, in the compact entries an agent reads first;
  // the summary's errors name the failures.
  await assertOperationsNamed(
    client,
    tabId,
    "/trpc/",
    [
      ["greet", 200],
      ["greet, itemById", 207],
      ["saveNote, saveNote", 207],
    ],
    "tRPC: itemById failed",
  );
  log("tRPC: a batch's failures answered 207 are errors named by procedure, and every request names its procedures");
  await tab.close();
}
