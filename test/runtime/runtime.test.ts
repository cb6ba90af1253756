import { describe, expect, it } from "vitest";

// `npm run test:deno` sets KEYWARD_EXPECT_RUNTIME=deno: proves the e2e suite really ran on Deno, not on Node.
describe("test runtime", () => {
  it("is the runtime the suite was started for", () => {
    const expected = process.env.KEYWARD_EXPECT_RUNTIME ?? "node";
    const actual = "Deno" in globalThis ? "deno" : "node";
    expect(actual).toBe(expected);
  });
});
