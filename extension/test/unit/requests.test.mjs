// request_join.js (a deep tab's browser rows joined with the page's rows and
// bodies), deep_frames.js, network.js and queue_store.js, fed what the worker
// and deep_requests.js would give them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { RequestJoin } = require("../../background/request_join.js");
const { DeepFrames } = require("../../background/deep_frames.js");
const { Network } = require("../../background/network.js");
const { QueueStore } = require("../../background/queue_store.js");

// Where deep_requests.js says a row is: the top frame, or a subframe by its protocol token and document URL.
const TOP = { frame: "TOP", frameUrl: "http://a/", top: true, parentTop: false };
const sub = (token, url, parent = TOP) => ({ frame: token, frameUrl: url, top: false, parentFrame: parent.frame, parentFrameUrl: parent.frameUrl, parentTop: parent.top });
const F0 = { id: 0, url: "http://a/" };

