// The extension's shared files are classic scripts (they run in the page and
// the service worker without a bundler); each exports itself for node too.
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
export const limits = require("../../lib/limits.js");
export const serialize = require("../../lib/serialize.js");
export const causes = require("../../lib/causes.js");
export const snapshot = require("../../lib/snapshot.js");
export const format = require("../../lib/format.js");
export const table = require("../../lib/table.js");
export const callsite = require("../../lib/callsite.js");
export const secrets = require("../../lib/secrets.js");
export const redact = require("../../lib/redact.js");
export const selector = require("../../lib/selector.js");
export * as settings from "../../background/settings.js";
export { normalize } from "../../background/normalize.js";
export { Delivery } from "../../background/delivery.js";
