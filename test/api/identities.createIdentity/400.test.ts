import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS } from "../../support/vias.js";

const limit = (fields: Record<string, unknown> = {}) => ({ name: "requests", limit: 10, duration: 60_000, ...fields });
const manyProperties = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));

describe("identities.createIdentity", () => {
  const harness = useKeyward();

  badInputCases(harness, "identities.createIdentity", [
    ...NOT_AN_OBJECT,
    { what: "a missing externalId", input: {}, locations: ["body.externalId"], detail: "externalId" },
    { what: "an empty externalId", input: { externalId: "" }, locations: ["body.externalId"], detail: "externalId" },
    { what: "a number for externalId", input: { externalId: 42 }, locations: ["body.externalId"], detail: "must be a string" },
    // Unkey v2's external id characters apply to v2 writes only (F17).
    { what: "an externalId with a space", input: { externalId: "user 1" }, locations: ["body.externalId"], detail: "externalId", vias: ["v2"] },
    { what: "an externalId with an @", input: { externalId: "user@example.com" }, locations: ["body.externalId"], detail: "externalId", vias: ["v2"] },
    // Unkey v1 external ids have at least 3 characters (F16).
    { what: "an externalId of 2 characters", input: { externalId: "ab" }, detail: "externalId: must be at least 3 characters", vias: ["v1"] },
    // Unkey v2 rate-limit names have at least 3 characters (F7).
    {
      what: "a rate limit name of 1 character", input: { externalId: "x1", ratelimits: [{ name: "r", limit: 1, duration: 1000, autoApply: false }] },
      locations: ["body.ratelimits[0].name"], detail: "ratelimits[0].name: must be at least 3 characters", vias: ["v2"],
    },
    { what: "an externalId of 256 characters", input: { externalId: "x".repeat(256) }, locations: ["body.externalId"], detail: "at most 255" },
    { what: "an array for meta", input: { externalId: "usr", meta: [1] }, locations: ["body.meta"], detail: "must be an object" },
    { what: "an object for ratelimits", input: { externalId: "usr", ratelimits: limit() }, locations: ["body.ratelimits"], detail: "must be an array" },
    {
      what: "a rate limit duration of 999 ms", input: { externalId: "usr", ratelimits: [limit({ duration: 999 })] },
      locations: ["body.ratelimits[0].duration"], detail: "duration",
    },
    { what: "a rate limit of 0", input: { externalId: "usr", ratelimits: [limit({ limit: 0 })] }, locations: ["body.ratelimits[0].limit"], detail: "limit" },
    {
      what: "a rate limit without a name", input: { externalId: "usr", ratelimits: [{ limit: 1, duration: 1000 }] },
      locations: ["body.ratelimits[0].name"], detail: "name",
    },
    {
      what: "51 rate limits", input: { externalId: "usr", ratelimits: Array.from({ length: 51 }, (_, i) => limit({ name: `lim${i}` })) },
      locations: ["body.ratelimits"], detail: "ratelimits",
    },
    {
      what: "two rate limits with the same name", input: { externalId: "usr", ratelimits: [limit(), limit({ limit: 5 })] },
      locations: ["body.ratelimits[1].name"], detail: 'Two rate limits are named "requests"',
    },
    { what: "meta with 101 properties", input: { externalId: "usr", meta: manyProperties }, locations: ["body.meta"], detail: "more than 100 properties" },
    {
      what: "meta larger than 64 KiB", input: { externalId: "usr", meta: { blob: "x".repeat(65 * 1024) } },
      locations: ["body.meta"], detail: "meta is larger than 65536 bytes",
    },
    { what: "an unknown field", input: { externalId: "usr", environment: "prod" }, locations: ["body.environment"], vias: ["v2"] },
    {
      what: "an unknown field inside a rate limit", input: { externalId: "usr", ratelimits: [limit({ async: true })] },
      locations: ["body.ratelimits[0].async"], vias: ["v2"],
    },
  ]);

  badRpcCases(harness, "identities.createIdentity", [
    { what: "a missing externalId", input: {}, field: "externalId" },
    { what: "an externalId of 256 characters", input: { externalId: "x".repeat(256) }, field: "externalId" },
    { what: "a rate limit duration of 999 ms", input: { externalId: "usr", ratelimits: [limit({ duration: "999" })] }, field: "duration" },
  ]);

  it("refuses duplicate rate-limit names and oversized meta on every transport, writing nothing", async () => {
    for (const via of ALL_VIAS) {
      await expectRefusal(harness, {
        via, op: "identities.createIdentity", input: { externalId: "dup_names", ratelimits: [limit(), limit()] },
        authorization: bearerOf(harness.keyward.rootKey), kind: "invalid", detail: 'Two rate limits are named "requests"',
      });
      await expectRefusal(harness, {
        via, op: "identities.createIdentity", input: { externalId: "big_meta", meta: manyProperties },
        authorization: bearerOf(harness.keyward.rootKey), kind: "invalid", detail: "more than 100 properties",
      });
    }
    expect(await harness.keyward.documents.identities.count(harness.keyward.workspaceId)).toBe(0);
  });
});
