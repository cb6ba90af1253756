import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPattern, matchesPattern, selectOverride } from "../../src/domain/override-match.js";

describe("matchesPattern", () => {
  it.each([
    ["premium_*", "premium_user1", true],
    ["premium_*", "premium_", true],
    ["premium_*", "free_user", false],
    ["*_admin", "root_admin", true],
    ["*_admin", "root_admin2", false],
    ["*suspicious*", "very-suspicious-ip", true],
    ["*", "anything", true],
    ["a*b*c", "aXXbYYc", true],
    ["a*b*c", "aXXcYYb", false],
    ["a**b", "ab", true],
    ["user.1", "user.1", true],
    ["user.1", "userX1", false],
    ["(x)+*", "(x)+y", true],
  ])("%s against %s is %s", (pattern, identifier, expected) => {
    expect(matchesPattern(pattern, identifier)).toBe(expected);
  });

  it("agrees with an escaped regular expression on random inputs", () => {
    const chars = fc.constantFrom("a", "b", "*", ".", "_");
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 8 }), fc.string({ unit: fc.constantFrom("a", "b", ".", "_"), maxLength: 10 }), (pattern, id) => {
        const regex = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "s");
        expect(matchesPattern(pattern, id)).toBe(regex.test(id));
      }),
    );
  });

  it("stays fast on a pattern of many stars that cannot match", () => {
    expect(matchesPattern("*a".repeat(100) + "b", "a".repeat(255))).toBe(false);
  });
});

describe("selectOverride", () => {
  const o = (id: string, identifier: string) => ({ id, identifier });

  it("an exact override beats every pattern, even a broader and older one", () => {
    const candidates = [o("rlor_1", "user_*"), o("rlor_2", "*"), o("rlor_3", "user_1")];
    expect(selectOverride("user_1", candidates)?.id).toBe("rlor_3");
  });

  it("among patterns the one with the most literal characters wins", () => {
    const candidates = [o("rlor_1", "*"), o("rlor_2", "user_*"), o("rlor_3", "user_premium_*")];
    expect(selectOverride("user_premium_7", candidates)?.id).toBe("rlor_3");
    expect(selectOverride("user_free_7", candidates)?.id).toBe("rlor_2");
    expect(selectOverride("guest", candidates)?.id).toBe("rlor_1");
  });

  it("ties on literal characters go to fewer stars, then to the oldest id", () => {
    expect(selectOverride("ab", [o("rlor_1", "*a*b"), o("rlor_2", "a*b")])?.id).toBe("rlor_2");
    expect(selectOverride("xy", [o("rlor_2", "x*"), o("rlor_1", "*y")])?.id).toBe("rlor_1");
  });

  it("a candidate without `*` never matches another identifier", () => {
    expect(selectOverride("user_2", [o("rlor_1", "user_1")])).toBeUndefined();
    expect(isPattern("user_1")).toBe(false);
  });
});
