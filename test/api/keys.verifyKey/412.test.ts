import { describe, expect, it } from "vitest";
import { expectPreconditionFailed } from "../../support/vias.js";
import { toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("keys.verifyKey 412", () => {
  const kit = useVerifyKit();

  it("v2 answers 412 to a requested rate-limit name the key does not have, counting nothing", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, {
      credits: { remaining: 5 }, ratelimits: [{ name: "minute", limit: 5, duration: MINUTE, autoApply: true }],
    });
    for (const ratelimits of [[{ name: "no-such-limit" }], [{ name: "minute", cost: 2 }, { name: "no-such-limit", cost: 1 }], [{ name: "half-adhoc", limit: 3 }]]) {
      const rest = await kit.verifier.send("v2", { key, ratelimits });
      expectPreconditionFailed({ via: "v2", rest }, { v1Code: "PRECONDITION_FAILED", detail: `has no rate limit named "${ratelimits.at(-1)!.name}"` });
      expect(rest.headers.get("x-request-id")).toBe(rest.body.meta.requestId);
    }
    expect(await kit.admin.balance(keyId)).toBe(5);
    const next = await kit.verify("v2", { key });
    expect({ code: next.code, credits: next.credits, limit: next.payload.ratelimits[0] })
      .toEqual({ code: "VALID", credits: 4, limit: expect.objectContaining({ name: "minute", remaining: 4, reset: start + MINUTE }) });
  });

  it("answers 412 for an unknown limit name only once the key is found: an unknown key is NOT_FOUND", async () => {
    const result = await kit.verify("v2", { key: "unknown_key_1234", ratelimits: [{ name: "no-such-limit" }] });
    expect(result.payload).toEqual({ valid: false, code: "NOT_FOUND" });
  });

  it("checks the other outcomes first: a disabled key asking for an unknown limit is DISABLED", async () => {
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId, { enabled: false });
    expect((await kit.verify("v2", { key, ratelimits: [{ name: "no-such-limit" }] })).code).toBe("DISABLED");
  });
});
