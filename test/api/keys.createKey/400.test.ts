import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT, type BadInput } from "../../support/bad-input.js";
import { apiKeys, expectKeysUnchanged } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient } from "../../support/vias.js";

/** An api id that passes the field rules; the requests below are refused before it is ever looked up. */
const API = "api_1111111111111111111111";
const limit = (fields: Record<string, unknown> = {}) => ({ name: "requests", limit: 10, duration: 60_000, ...fields });

describe("keys.createKey", () => {
  const harness = useKeyward();

  const cases: BadInput[] = [
    ...NOT_AN_OBJECT,
    { what: "a missing apiId", input: {}, locations: ["body.apiId"], detail: "apiId" },
    { what: "an apiId with a dash", input: { apiId: "api-1234" }, locations: ["body.apiId"], detail: "pattern" },
    { what: "a number for the apiId", input: { apiId: 12345 }, locations: ["body.apiId"], detail: "must be a string" },
    { what: "a number for the name", input: { apiId: API, name: 5 }, locations: ["body.name"], detail: "must be a string" },
    { what: "a string for byteLength", input: { apiId: API, byteLength: "32" }, locations: ["body.byteLength"] },
    { what: "a string for enabled", input: { apiId: API, enabled: "yes" }, locations: ["body.enabled"], detail: "must be a boolean" },
    { what: "an array for meta", input: { apiId: API, meta: [1] }, locations: ["body.meta"], detail: "must be an object" },
    { what: "a string for expires", input: { apiId: API, expires: "tomorrow" }, locations: ["body.expires"] },
    { what: "an object for ratelimits", input: { apiId: API, ratelimits: limit() }, locations: ["body.ratelimits"], detail: "must be an array" },
    { what: "a prefix of 17 characters", input: { apiId: API, prefix: "a".repeat(17) }, locations: ["body.prefix"], detail: "prefix" },
    { what: "a prefix with a dash", input: { apiId: API, prefix: "sk-live" }, locations: ["body.prefix"], detail: "pattern" },
    { what: "a prefix with a space", input: { apiId: API, prefix: "sk live" }, locations: ["body.prefix"], detail: "pattern" },
    { what: "an empty prefix", input: { apiId: API, prefix: "" }, locations: ["body.prefix"], detail: "prefix" },
    { what: "byteLength 15", input: { apiId: API, byteLength: 15 }, locations: ["body.byteLength"], detail: "byteLength" },
    { what: "byteLength 256", input: { apiId: API, byteLength: 256 }, locations: ["body.byteLength"], detail: "byteLength" },
    { what: "a name of 256 characters", input: { apiId: API, name: "n".repeat(256) }, locations: ["body.name"], detail: "name" },
    { what: "an empty name", input: { apiId: API, name: "" }, locations: ["body.name"], detail: "name" },
    // Unkey v2's external id characters hold on v2 writes; v1 ownerIds are any text (F17).
    { what: "an externalId with a space", input: { apiId: API, externalId: "user 1" }, locations: ["body.externalId"], detail: "externalId", vias: ["v2"] },
    { what: "an externalId with an @", input: { apiId: API, externalId: "user@example.com" }, locations: ["body.externalId"], detail: "externalId", vias: ["v2"] },
    { what: "an externalId of 256 characters", input: { apiId: API, externalId: "e".repeat(256) }, locations: ["body.externalId"] },
    { what: "expires after 4102444800000", input: { apiId: API, expires: 4102444800001 }, locations: ["body.expires"], detail: "expires" },
    { what: "a negative expires", input: { apiId: API, expires: -1 }, locations: ["body.expires"], detail: "expires" },
    { what: "an environment of 257 characters", input: { apiId: API, environment: "e".repeat(257) }, locations: ["body.environment"] },
    { what: "an empty role name", input: { apiId: API, roles: [""] }, locations: ["body.roles[0]"], detail: "roles" },
    { what: "a role name of 129 characters", input: { apiId: API, roles: ["r".repeat(129)] }, locations: ["body.roles[0]"], detail: "roles" },
    { what: "a permission with a space", input: { apiId: API, permissions: ["docs read"] }, locations: ["body.permissions[0]"], detail: "permissions" },
    { what: "a permission with a parenthesis", input: { apiId: API, permissions: ["docs(read)"] }, locations: ["body.permissions[0]"], detail: "permissions" },
    { what: "a permission of 129 characters", input: { apiId: API, permissions: ["p".repeat(129)] }, locations: ["body.permissions[0]"] },
    // Unkey v1 createKey refuses a zero balance; v2 allows it (F13).
    { what: "a v1 remaining of 0", input: { apiId: API, remaining: 0 }, detail: "remaining must be greater than 0", vias: ["v1"] },
    // Unkey v2 rate-limit names have at least 3 characters (F7).
    {
      what: "a rate limit name of 2 characters", input: { apiId: API, ratelimits: [limit({ name: "rl" })] },
      locations: ["body.ratelimits[0].name"], detail: "ratelimits[0].name: must be at least 3 characters", vias: ["v2"],
    },
    {
      what: "a rate limit duration of 999 ms", input: { apiId: API, ratelimits: [limit({ duration: 999 })] },
      locations: ["body.ratelimits[0].duration"], detail: "duration",
    },
    {
      what: "a rate limit of 0", input: { apiId: API, ratelimits: [limit({ limit: 0 })] },
      locations: ["body.ratelimits[0].limit"], detail: "limit",
    },
    {
      what: "a rate limit without a name", input: { apiId: API, ratelimits: [{ limit: 1, duration: 1000 }] },
      locations: ["body.ratelimits[0].name"], detail: "name",
    },
    {
      what: "51 rate limits", input: { apiId: API, ratelimits: Array.from({ length: 51 }, (_, i) => limit({ name: `lim${i}` })) },
      locations: ["body.ratelimits"], detail: "ratelimits",
    },
    {
      what: "negative credits", input: { apiId: API, credits: { remaining: -1 } },
      locations: ["body.credits.remaining"], detail: "remaining",
    },
    {
      what: "refillDay 32", input: { apiId: API, credits: { remaining: 1, refill: { interval: "monthly", amount: 1, refillDay: 32 } } },
      locations: ["body.credits.refill.refillDay"], detail: "refillDay",
    },
    {
      what: "refillDay 0", input: { apiId: API, credits: { remaining: 1, refill: { interval: "monthly", amount: 1, refillDay: 0 } } },
      locations: ["body.credits.refill.refillDay"], detail: "refillDay",
    },
    {
      what: "a weekly refill", input: { apiId: API, credits: { remaining: 1, refill: { interval: "weekly", amount: 1 } } },
      locations: ["body.credits.refill.interval"], detail: "interval",
    },
    {
      what: "a refill amount of 0", input: { apiId: API, credits: { remaining: 1, refill: { interval: "daily", amount: 0 } } },
      locations: ["body.credits.refill.amount"], detail: "amount",
    },
    {
      what: "an unknown field (v2 refuses what v1 tolerates)", input: { apiId: API, unknownField: 1 },
      locations: ["body.unknownField"], detail: "body.unknownField", vias: ["v2"],
    },
    {
      what: "an unknown field inside a rate limit", input: { apiId: API, ratelimits: [limit({ async: true })] },
      locations: ["body.ratelimits[0].async"], vias: ["v2"],
    },
    {
      what: "a v1 field on v2 (remaining)", input: { apiId: API, remaining: 5 }, locations: ["body.remaining"], vias: ["v2"],
    },
  ];
  badInputCases(harness, "keys.createKey", cases);

  badRpcCases(harness, "keys.createKey", [
    { what: "a missing apiId", input: {}, field: "apiId" },
    { what: "a prefix of 17 characters", input: { apiId: API, prefix: "a".repeat(17) }, field: "prefix" },
    { what: "a prefix with a dash", input: { apiId: API, prefix: "a-b" }, field: "prefix" },
    { what: "byteLength 15", input: { apiId: API, byteLength: 15 }, field: "byteLength" },
    { what: "byteLength 256", input: { apiId: API, byteLength: 256 }, field: "byteLength" },
    { what: "an externalId of 256 characters", input: { apiId: API, externalId: "a".repeat(256) }, field: "externalId" },
    { what: "expires after 4102444800000", input: { apiId: API, expires: "4102444800001" }, field: "expires" },
    { what: "a rate limit duration of 999 ms", input: { apiId: API, ratelimits: [limit({ duration: "999" })] }, field: "duration" },
    {
      what: "refillDay 32", input: { apiId: API, credits: { remaining: "1", refill: { interval: "monthly", amount: "1", refillDay: 32 } } },
      field: "refillDay",
    },
  ]);

  // Rules the service checks once the api is known: every transport refuses them, and nothing is written —
  // not even the identity an externalId would have created.
  const serviceRules: { what: string; fields: Record<string, unknown>; location: string; detail: string; vias?: typeof ALL_VIAS }[] = [
    {
      what: "two rate limits with the same name", fields: { ratelimits: [limit(), limit({ limit: 5 })] },
      location: "body.ratelimits[1].name", detail: 'Two rate limits are named "requests"',
    },
    {
      what: "a monthly refill without refillDay (v2)", fields: { credits: { remaining: 5, refill: { interval: "monthly", amount: 5 } } },
      location: "body.credits.refill.refillDay", detail: "A monthly refill needs refillDay",
    },
    {
      what: "a daily refill with a refillDay", fields: { credits: { remaining: 5, refill: { interval: "daily", amount: 5, refillDay: 3 } } },
      location: "body.credits.refill.refillDay", detail: "refillDay applies to monthly refills only",
    },
    {
      what: "a refill without a balance", fields: { credits: { refill: { interval: "daily", amount: 5 } } },
      location: "body.credits.remaining", detail: "A refill needs a credit balance",
    },
    {
      what: "meta with 101 properties", fields: { meta: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) },
      location: "body.meta", detail: "more than 100 properties",
    },
  ];
  for (const rule of serviceRules) {
    it(`answers 400 to ${rule.what} on every transport, creating neither key nor identity`, async () => {
      const apiId = await harness.seed.api({ name: "service-rules" });
      await harness.seed.key(apiId, { name: "existing" });
      for (const name of ALL_VIAS) {
        const externalId = `never_created_${name}`;
        await expectKeysUnchanged(harness, { apiIds: [apiId] }, async () => {
          const outcome = await viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey)
            .fails("keys.createKey", { apiId, externalId, ...rule.fields }, "invalid", { detail: rule.detail });
          if (outcome.via === "v2") expect(outcome.rest.body.error.errors).toEqual([{ location: rule.location, message: expect.any(String) }]);
        });
        expect(await harness.keyward.documents.identities.findByExternalId(harness.keyward.workspaceId, externalId)).toBeUndefined();
      }
      expect((await apiKeys(harness, apiId)).map((k) => k.name)).toEqual(["existing"]);
    });
  }

  it("v1 tolerates unknown fields: the key is created from the known ones", async () => {
    const apiId = await harness.seed.api({ name: "tolerant" });
    const created = await viaClient(harness.keyward.baseUrl, "v1", harness.keyward.rootKey)
      .ok("keys.createKey", { apiId, name: "tolerant", unknownField: 1 });
    expect((await apiKeys(harness, apiId)).map((k) => [k.id, k.name])).toEqual([[created.keyId, "tolerant"]]);
  });
});
