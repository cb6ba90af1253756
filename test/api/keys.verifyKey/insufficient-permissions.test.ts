import { describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const MINUTE = 60_000;

/** Queries in both dialects against a key holding docs.read and docs.write, with the expected code. */
const CASES: { v1: unknown; v2: string; code: string }[] = [
  { v1: "docs.read", v2: "docs.read", code: "VALID" },
  { v1: "docs.delete", v2: "docs.delete", code: "INSUFFICIENT_PERMISSIONS" },
  { v1: { and: ["docs.read", "docs.write"] }, v2: "docs.read AND docs.write", code: "VALID" },
  { v1: { and: ["docs.read", "docs.delete"] }, v2: "docs.read AND docs.delete", code: "INSUFFICIENT_PERMISSIONS" },
  { v1: { or: ["docs.delete", "docs.write"] }, v2: "docs.delete OR docs.write", code: "VALID" },
  { v1: { or: ["docs.delete", "admin"] }, v2: "docs.delete OR admin", code: "INSUFFICIENT_PERMISSIONS" },
  { v1: { and: ["docs.read", { or: ["admin", "docs.write"] }] }, v2: "docs.read AND (admin OR docs.write)", code: "VALID" },
  { v1: { or: [{ and: ["admin", "docs.read"] }, "docs.delete"] }, v2: "(admin AND docs.read) OR docs.delete", code: "INSUFFICIENT_PERMISSIONS" },
  // AND binds tighter than OR: admin OR (docs.read AND docs.write).
  { v1: { or: ["admin", { and: ["docs.read", "docs.write"] }] }, v2: "admin or docs.read and docs.write", code: "VALID" },
  // `*` is a literal name, never a glob.
  { v1: "docs.*", v2: "docs.*", code: "INSUFFICIENT_PERMISSIONS" },
];

describe("keys.verifyKey INSUFFICIENT_PERMISSIONS", () => {
  const kit = useVerifyKit();

  it("evaluates v1 authorization.permissions objects and v2 permission strings alike", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { permissions: ["docs.read", "docs.write"] });
    for (const { v1, v2, code } of CASES) {
      for (const via of ["v1", "v2"] as const) {
        const result = await kit.verify(via, { key, permissions: { v1, v2 } });
        expect({ via, query: via === "v1" ? v1 : v2, code: result.code, valid: result.valid, keyId: result.payload.keyId })
          .toEqual({ via, query: via === "v1" ? v1 : v2, code, valid: code === "VALID", keyId });
        expect(result.payload.permissions).toEqual(["docs.read", "docs.write"]);
      }
    }
  });

  it("answers INSUFFICIENT_PERMISSIONS to any query for a key with no permissions", async () => {
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId);
    for (const via of ["v1", "v2"] as const) {
      const result = await kit.verify(via, { key, permissions: { v1: "docs.read", v2: "docs.read" } });
      expect({ via, code: result.code, permissions: result.payload.permissions }).toEqual({ via, code: "INSUFFICIENT_PERMISSIONS", permissions: [] });
    }
  });

  it("spends no credit and no rate limit, and comes before RATE_LIMITED and USAGE_EXCEEDED", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, {
      permissions: ["docs.read"], credits: { remaining: 2 }, ratelimits: [{ name: "minute", limit: 2, duration: MINUTE, autoApply: true }],
    });
    const denied = { v1: "docs.write", v2: "docs.write" };
    for (let i = 0; i < 4; i++) {
      const result = await kit.verify(i % 2 ? "v1" : "v2", { key, permissions: denied });
      expect({ code: result.code, credits: result.credits }).toEqual({ code: "INSUFFICIENT_PERMISSIONS", credits: 2 });
    }
    expect(await kit.admin.balance(keyId)).toBe(2);
    const first = await kit.verify("v2", { key, permissions: { v1: "docs.read", v2: "docs.read" } });
    expect({ code: first.code, credits: first.credits, limit: first.payload.ratelimits[0] })
      .toEqual({ code: "VALID", credits: 1, limit: expect.objectContaining({ remaining: 1, reset: start + MINUTE, exceeded: false }) });
    expect((await kit.verify("v2", { key })).code).toBe("VALID");
    // Now both the window and the credits are used up; a failing query still answers INSUFFICIENT_PERMISSIONS.
    for (const via of ["v1", "v2"] as const) {
      const result = await kit.verify(via, { key, permissions: denied });
      expect({ via, code: result.code, credits: result.credits }).toEqual({ via, code: "INSUFFICIENT_PERMISSIONS", credits: 0 });
    }
    expect((await kit.verify("v2", { key })).code).toBe("RATE_LIMITED");
  });

  it("sees permissions replaced by keys.updateKey at the next verification", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { permissions: ["a"] });
    const query = { v1: "b", v2: "b" };
    expect((await kit.verify("v2", { key, permissions: query })).code).toBe("INSUFFICIENT_PERMISSIONS");
    await kit.admin.update({ keyId, permissions: ["b"] });
    expect((await kit.verify("v2", { key, permissions: query })).code).toBe("VALID");
    expect((await kit.verify("v1", { key, permissions: { v1: "a", v2: "a" } })).code).toBe("INSUFFICIENT_PERMISSIONS");
  });
});
