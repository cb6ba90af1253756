import { describe, expect, it } from "vitest";
import { expectFailure, type FailureExpectation } from "../../support/expect-outcome.js";
import { toNextWindow, useVerifyKit, verifyBody, type VerifyIntent, type VerifyVia } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("keys.verifyKey 400", () => {
  const kit = useVerifyKit();

  /** Sends a raw body and asserts the dialect's 400 (legacy answers as v1 does). */
  async function expect400(via: VerifyVia, body: unknown, expectation: FailureExpectation = {}) {
    const rest = await kit.verifier.send(via, body);
    // v2 names where in the request (`body.tags[1]`); v1 carries no locations.
    const locations = expectation.locations?.map((location) => `body.${location}`);
    return expectFailure(via === "v2" ? { via: "v2", rest } : { via: "v1", rest }, "invalid", { ...expectation, locations });
  }
  const intent400 = (via: VerifyVia, intent: VerifyIntent, expectation: FailureExpectation = {}) =>
    expect400(via, verifyBody(via, intent), expectation);

  /** A key with a balance and an autoApply limit, to show a refused request spent neither. */
  async function meteredKey() {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, {
      credits: { remaining: 5 }, ratelimits: [{ name: "minute", limit: 5, duration: MINUTE, autoApply: true }],
    });
    const unchanged = async () => {
      expect(await kit.admin.balance(keyId)).toBe(5);
      const next = await kit.verify("v2", { key });
      expect({ code: next.code, credits: next.credits, limit: next.payload.ratelimits[0].remaining, reset: next.payload.ratelimits[0].reset })
        .toEqual({ code: "VALID", credits: 4, limit: 4, reset: start + MINUTE });
    };
    return { apiId, keyId, key, unchanged };
  }

  it("refuses more than 20 tags or a tag over 512 characters on v2, 10 and 128 on v1 (Unkey's bounds, F4), and an empty tag, spending nothing", async () => {
    const { key, unchanged } = await meteredKey();
    const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag-${i}`);
    await intent400("v2", { key, tags: tags(21) }, { locations: ["tags"], detail: "tags" });
    await intent400("v2", { key, tags: ["ok", "x".repeat(513)] }, { locations: ["tags[1]"], detail: "tags[1]" });
    for (const via of ["v1", "legacy"] as const) {
      await intent400(via, { key, tags: tags(11) }, { detail: "tags" });
      await intent400(via, { key, tags: ["ok", "x".repeat(129)] }, { detail: "tags[1]" });
    }
    for (const via of ["v2", "v1", "legacy"] as const) await intent400(via, { key, tags: [""] }, { locations: ["tags[0]"] });
    await unchanged();
  });

  it("v2 takes 20 tags and tags of 512 characters (F4)", async () => {
    const { key } = await meteredKey();
    const twenty = Array.from({ length: 20 }, (_, i) => `tag-${i}`);
    expect((await kit.verify("v2", { key, tags: twenty })).code).toBe("VALID");
    expect((await kit.verify("v2", { key, tags: ["x".repeat(512)] })).code).toBe("VALID");
  });

  it("v2 requires credits.cost when credits is given and caps it at 10^12; v2 rate-limit names have 3+ characters (F5, F6)", async () => {
    const { key, unchanged } = await meteredKey();
    await expect400("v2", { key, credits: {} }, { locations: ["credits.cost"], detail: "credits.cost" });
    await intent400("v2", { key, cost: 1_000_000_000_001 }, { locations: ["credits.cost"] });
    await intent400("v2", { key, ratelimits: [{ name: "ab" }] }, { locations: ["ratelimits[0].name"], detail: "at least 3 characters" });
    await unchanged();
  });

  it("v2 takes a credits cost above 10^9 and a rate-limit cost above 10^9 (F5, F9)", async () => {
    const { keyId, key } = await meteredKey();
    const costly = await kit.verify("v2", { key, cost: 2_000_000_000 });
    expect({ code: costly.code, credits: costly.credits }).toEqual({ code: "USAGE_EXCEEDED", credits: 5 });
    const limited = await kit.verify("v2", { key, ratelimits: [{ name: "minute", cost: 2_000_000_000 }] });
    expect(limited.code).toBe("RATE_LIMITED");
    expect(await kit.admin.balance(keyId)).toBe(5);
  });

  it("v1 charges 1 credit for remaining: {} (Unkey's default cost, F5)", async () => {
    const { keyId, key } = await meteredKey();
    const verified = await kit.verify("v1", { key, extra: { remaining: {} } });
    expect({ code: verified.code, credits: verified.credits }).toEqual({ code: "VALID", credits: 4 });
    expect(await kit.admin.balance(keyId)).toBe(4);
  });

  it("refuses a missing or empty key", async () => {
    for (const via of ["v2", "v1", "legacy"] as const) {
      await expect400(via, {}, { locations: ["key"] });
      await expect400(via, { key: "" }, { locations: ["key"] });
    }
  });

  it("refuses malformed JSON, a wrong type and (v2) an unknown field", async () => {
    for (const via of ["v2", "v1", "legacy"] as const) {
      await expect400(via, "{\"key\":");
      await expect400(via, { key: 42 });
      await expect400(via, { key: "k", tags: "not-a-list" });
    }
    await expect400("v2", { key: "k", unknownField: true });
  });

  it("refuses a negative cost", async () => {
    const { key, unchanged } = await meteredKey();
    for (const via of ["v2", "v1"] as const) {
      await intent400(via, { key, cost: -1 }, { locations: [via === "v2" ? "credits.cost" : "remaining.cost"] });
      await intent400(via, { key, ratelimits: [{ name: "minute", cost: -1 }] }, { locations: ["ratelimits[0].cost"] });
    }
    await unchanged();
  });

  it("v1 refuses a requested rate-limit name the key does not have (400), counting nothing", async () => {
    const { apiId, key, unchanged } = await meteredKey();
    for (const via of ["v1", "legacy"] as const) {
      const detail = await intent400(via, { key, apiId, ratelimits: [{ name: "minute" }, { name: "no-such-limit" }] }, {
        detail: 'no rate limit named "no-such-limit"',
      });
      expect(detail).toContain("limit and duration");
    }
    await unchanged();
  });

  it("v2 refuses a permission query that does not parse, naming where", async () => {
    const { key, unchanged } = await meteredKey();
    for (const query of ["docs.read AND", "(docs.read OR docs.write", "docs.read docs.write", "AND docs.read", "docs.read OR ()"]) {
      const detail = await intent400("v2", { key, permissions: { v1: null, v2: query } }, { locations: ["permissions"], detail: "The permission query is invalid" });
      expect({ query, detail }).toEqual({ query, detail: expect.stringMatching(/position|column|at \d+|index/i) });
    }
    await intent400("v2", { key, permissions: { v1: null, v2: "" } }, { locations: ["permissions"] });
    await intent400("v2", { key, permissions: { v1: null, v2: "a".repeat(1001) } }, { locations: ["permissions"] });
    await unchanged();
  });

  it("v1 refuses an authorization.permissions that is not a name, {and:[...]} or {or:[...]}", async () => {
    const { key, unchanged } = await meteredKey();
    const bad: unknown[] = [{ xor: ["a"] }, { and: [] }, { and: ["a"], or: ["b"] }, { or: "a" }, { and: ["a", 7] }, 42, "", ["a"]];
    for (const v1 of bad) {
      await intent400("v1", { key, permissions: { v1, v2: "" } }, { detail: "The permission query is invalid" });
      await intent400("legacy", { key, permissions: { v1, v2: "" } }, { detail: "The permission query is invalid" });
    }
    await unchanged();
  });
});
