import { describe, expect, it } from "vitest";

// `npm run test:deno` sets KEYWARD_EXPECT_RUNTIME=deno: proves the e2e suite really ran on Deno, not on Node.
// scripts/test.sh's Node 24 pass sets KEYWARD_EXPECT_NODE_MAJOR=24: proves it ran on that Node, not the machine's.
describe("test runtime", () => {
  it("is the runtime the suite was started for", () => {
    const expected = process.env.KEYWARD_EXPECT_RUNTIME ?? "node";
    const actual = "Deno" in globalThis ? "deno" : "node";
    expect(actual).toBe(expected);
  });

  it.runIf(process.env.KEYWARD_EXPECT_NODE_MAJOR)("is the Node major the suite was started for", () => {
    expect(process.versions.node.split(".")[0]).toBe(process.env.KEYWARD_EXPECT_NODE_MAJOR);
  });
});
