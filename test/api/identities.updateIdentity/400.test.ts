import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS } from "../../support/vias.js";

const limit = (fields: Record<string, unknown> = {}) => ({ name: "requests", limit: 10, duration: 60_000, ...fields });
const manyProperties = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));

describe("identities.updateIdentity", () => {
  const harness = useKeyward();

  badInputCases(harness, "identities.updateIdentity", [
    ...NOT_AN_OBJECT,
    { what: "no identity at all", input: { meta: { a: 1 } }, locations: ["body.identity"], detail: "Name the identity" },
    { what: "an empty identity", input: { identity: "" }, locations: ["body.identity"], detail: "identity" },
    // Unkey v2 rate-limit names have at least 3 characters; v1 takes 1 (F7).
    {
      what: "a rate limit name of 2 characters", input: { identity: "u", ratelimits: [limit({ name: "rl" })] },
      locations: ["body.ratelimits[0].name"], detail: "ratelimits[0].name: must be at least 3 characters", vias: ["v2"],
    },
    { what: "an array for meta", input: { identity: "u", meta: [1] }, locations: ["body.meta"], detail: "must be an object" },
    {
      what: "a rate limit duration of 999 ms", input: { identity: "u", ratelimits: [limit({ duration: 999 })] },
      locations: ["body.ratelimits[0].duration"], detail: "duration",
    },
    { what: "a negative rate limit", input: { identity: "u", ratelimits: [limit({ limit: -1 })] }, locations: ["body.ratelimits[0].limit"], detail: "limit" },
    { what: "an unknown field", input: { identity: "u", externalIdentity: "x" }, locations: ["body.externalIdentity"], vias: ["v2"] },
    { what: "a v1 body with an empty identityId", input: { identityId: "", meta: {} }, vias: ["v1"], detail: "identityId" },
  ]);

  badRpcCases(harness, "identities.updateIdentity", [
    { what: "no identity at all", input: { meta: { a: 1 } }, field: "identity" },
    { what: "a rate limit duration of 999 ms", input: { identity: "u", ratelimits: [limit({ duration: "999" })] }, field: "duration" },
  ]);

  it("refuses duplicate names, oversized meta and unknown mask paths on an existing identity over every transport, changing nothing", async () => {
    const created = await harness.rest.v2("identities.createIdentity", { externalId: "victim", meta: { keep: true }, ratelimits: [limit()] }, harness.keyward.rootKey);
    const id = created.body.data.identityId;
    const before = await harness.keyward.documents.identities.get(harness.keyward.workspaceId, id);
    const cases: [Record<string, unknown>, string][] = [
      [{ ratelimits: [limit(), limit({ limit: 1 })] }, 'Two rate limits are named "requests"'],
      [{ meta: manyProperties }, "more than 100 properties"],
      [{ meta: { blob: "x".repeat(65 * 1024) } }, "meta is larger than 65536 bytes"],
      [{ meta: { ok: true }, ratelimits: [limit(), limit()] }, 'Two rate limits are named "requests"'],
    ];
    for (const via of ALL_VIAS) {
      for (const [fields, detail] of cases) {
        const reference = via === "v1" ? { externalId: "victim" } : { identity: "victim" };
        await expectRefusal(harness, {
          via, op: "identities.updateIdentity", input: { ...reference, ...fields }, authorization: bearerOf(harness.keyward.rootKey),
          kind: "invalid", detail,
        });
      }
    }
    for (const via of ["connect", "grpc", "grpcWeb"] as const) {
      await expectRefusal(harness, {
        via, op: "identities.updateIdentity", input: { identity: "victim", updateMask: "createdAt" }, authorization: bearerOf(harness.keyward.rootKey),
        kind: "invalid", detail: "Cannot update created_at",
      });
    }
    expect(await harness.keyward.documents.identities.get(harness.keyward.workspaceId, id)).toEqual(before);
  });
});
