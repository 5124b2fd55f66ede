// Format specifiers as Chrome's DevTools applies them (lib/format.js), on
// plain values and on snapshots taken at call time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { format, snapshot, limits } from "./load.mjs";

const fmt = (...args) => format.formatMessage(args).text;

test("a React-style warning arrives formatted", () => {
  assert.equal(fmt("Warning: %s%s", "Each child should have a key.", "\n    in li (at App.js:12)\n    in App"),
    "Warning: Each child should have a key.\n    in li (at App.js:12)\n    in App");
  assert.equal(fmt("Warning: Failed %s type: %s%s", "prop", "Invalid prop `x`", ""), "Warning: Failed prop type: Invalid prop `x`");
});

test("%s %d %i %f take their argument as DevTools shows it", () => {
  assert.equal(fmt("%s|%s|%s|%s|%s", 1.5, null, undefined, true, 10n), "1.5|null|undefined|true|10n");
  assert.equal(fmt("%s", Symbol("k")), "Symbol(k)");
  assert.equal(fmt("%d %i %d", 42.9, -1.5, 7), "42 -2 7");
  assert.equal(fmt("%f", 1.25), "1.25");
  assert.equal(fmt("%d %f %i", "42", {}, null), "NaN NaN NaN", "DevTools shows NaN for what is not a number");
  assert.equal(fmt("%s", { a: [1, 2] }), '{"a":[1,2]}', "an object under %s is shown, not 'Object'");
});

test("%o and %O show objects; a string under them is quoted", () => {
  assert.equal(fmt("user %o", { name: "ann" }), 'user {"name":"ann"}');
  assert.equal(fmt("%O!", [1, { b: 2 }]), '[1,{"b":2}]!');
  assert.equal(fmt("%o", "text"), '"text"');
});

test("%c styles are dropped and their argument consumed; %% is a percent sign", () => {
  assert.equal(fmt("%cBig%c red", "font-size: 40px", "color: red"), "Big red");
  assert.equal(fmt("100%% done %c", "color: blue", "after"), "100% done  after");
  assert.equal(fmt("%_hidden", "x"), "hidden");
});

test("ANSI colour escapes in the format are dropped", () => {
  assert.equal(fmt("\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[m"), "red and green");
});

test("arguments left over are appended; missing ones leave the specifier as written", () => {
  assert.equal(fmt("a %s", "b", "c", { d: 1 }, 2), 'a b c {"d":1} 2');
  assert.equal(fmt("%s and %s and %d", "one"), "one and %s and %d");
  assert.equal(fmt("%x %j %", 1), "%x %j % 1", "unknown specifiers are text");
});

test("only a first argument that is a string is a format", () => {
  assert.equal(fmt(1, "%s", "x"), "1 %s x");
  assert.equal(fmt({ a: "%s" }, "x"), '{"a":"%s"} x');
  assert.equal(fmt(), "");
});

test("snapshots format like the values they copy", () => {
  const user = { name: "ann", roles: ["admin"] };
  const tape = snapshot.take(["%s logged in as %o (%d)", "ann", user, 3]);
  user.name = "changed";
  user.roles.push("root");
  assert.equal(format.formatMessage(snapshot.values(tape)).text, 'ann logged in as {"name":"ann","roles":["admin"]} (3)');
});

test("the formatted message is cut to the cap and says its size", () => {
  const msg = format.formatMessage(["%s", "y".repeat(limits.MESSAGE_CAP + 10)]);
  assert.equal(msg.truncated, true);
  assert.equal(msg.text.length, limits.MESSAGE_CAP);
  assert.equal(msg.size, limits.MESSAGE_CAP + 10);
});
