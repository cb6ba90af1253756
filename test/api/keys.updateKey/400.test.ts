import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { expectKeysUnchanged, verifyCode } from "../../support/key-state.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { viaClient } from "../../support/vias.js";

const KEY = "key_1111111111111111111111";
const limit = (fields: Record<string, unknown> = {}) => ({ name: "requests", limit: 10, duration: 60_000, ...fields });

describe("keys.updateKey", () => {
  const harness = useKeyward();

  badInputCases(harness, "keys.updateKey", [
    ...NOT_AN_OBJECT,
    { what: "a missing keyId", input: { name: "x" }, locations: ["body.keyId"], detail: "keyId" },
    { what: "a keyId with a dash", input: { keyId: "key-1234" }, locations: ["body.keyId"], detail: "pattern" },
    { what: "a number for the name", input: { keyId: KEY, name: 5 }, locations: ["body.name"], detail: "must be a string" },
    { what: "an empty name", input: { keyId: KEY, name: "" }, locations: ["body.name"], detail: "name" },
    { what: "a name of 256 characters", input: { keyId: KEY, name: "n".repeat(256) }, locations: ["body.name"], detail: "name" },
    { what: "a string for enabled", input: { keyId: KEY, enabled: "no" }, locations: ["body.enabled"], detail: "must be a boolean" },
    { what: "an array for meta", input: { keyId: KEY, meta: [] }, locations: ["body.meta"], detail: "must be an object" },
    { what: "an externalId with a space", input: { keyId: KEY, externalId: "a b" }, locations: ["body.externalId"], detail: "externalId", vias: ["v2"] },
    { what: "expires after 4102444800000", input: { keyId: KEY, expires: 4102444800001 }, locations: ["body.expires"], detail: "expires" },
    { what: "an empty environment", input: { keyId: KEY, environment: "" }, locations: ["body.environment"], detail: "environment" },
    { what: "a role name of 129 characters", input: { keyId: KEY, roles: ["r".repeat(129)] }, locations: ["body.roles[0]"], detail: "roles" },
    {
      what: "a rate limit name of 2 characters", input: { keyId: KEY, ratelimits: [{ name: "rl", limit: 1, duration: 1000 }] },
      locations: ["body.ratelimits[0].name"], detail: "ratelimits[0].name: must be at least 3 characters", vias: ["v2"],
    },
    { what: "a permission with a space", input: { keyId: KEY, permissions: ["docs read"] }, locations: ["body.permissions[0]"], detail: "permissions" },
    {
      what: "a rate limit duration of 999 ms", input: { keyId: KEY, ratelimits: [limit({ duration: 999 })] },
      locations: ["body.ratelimits[0].duration"], detail: "duration",
    },
    {
      what: "refillDay 32", input: { keyId: KEY, credits: { refill: { interval: "monthly", amount: 1, refillDay: 32 } } },
      locations: ["body.credits.refill.refillDay"], detail: "refillDay",
    },
    {
      what: "a weekly refill", input: { keyId: KEY, credits: { refill: { interval: "weekly", amount: 1 } } },
      locations: ["body.credits.refill.interval"], detail: "interval",
    },
    { what: "negative credits", input: { keyId: KEY, credits: { remaining: -5 } }, locations: ["body.credits.remaining"] },
    { what: "a number for updateMask", input: { keyId: KEY, updateMask: 5 }, locations: ["body.updateMask"] },
    { what: "an unknown field", input: { keyId: KEY, prefix: "new" }, locations: ["body.prefix"], detail: "body.prefix", vias: ["v2"] },
    { what: "the v1 field remaining on v2", input: { keyId: KEY, remaining: 5 }, locations: ["body.remaining"], vias: ["v2"] },
  ]);

  badRpcCases(harness, "keys.updateKey", [
    { what: "a missing keyId", input: {}, field: "keyId" },
    { what: "a name of 256 characters", input: { keyId: KEY, name: "n".repeat(256) }, field: "name" },
    { what: "a rate limit duration of 999 ms", input: { keyId: KEY, ratelimits: [limit({ duration: "999" })] }, field: "duration" },
  ]);

  // Rules checked once the key is loaded: every transport refuses them and the key, its balance and its identity
  // stay exactly as they were — no identity is created for the externalId sent alongside.
  const serviceRules: { what: string; patch: Record<string, unknown>; detail: string; rest?: boolean }[] = [
    { what: "two rate limits with the same name", patch: { ratelimits: [limit(), limit({ limit: 1 })] }, detail: 'Two rate limits are named "requests"' },
    {
      what: "a monthly refill without refillDay", patch: { credits: { refill: { interval: "monthly", amount: 5 } } },
      detail: "A monthly refill needs refillDay",
    },
    {
      what: "meta with 101 properties", patch: { meta: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) },
      detail: "more than 100 properties",
    },
    { what: "an update mask naming a field that cannot change", patch: { updateMask: "start" }, detail: "Cannot update start" },
  ];
  for (const [index, rule] of serviceRules.entries()) {
    it(`answers 400 to ${rule.what} on every transport, changing nothing`, async () => {
      const apiId = await harness.seed.api({ name: "service-rules" });
      const { keyId, key } = await harness.seed.key(apiId, { name: "kept", externalId: "owner_kept", credits: { remaining: 5 } });
      for (const via of viasOf(OPERATIONS["keys.updateKey"])) {
        const externalId = `never_${index}_${via}`;
        const input: Record<string, any> = { keyId, externalId, name: "changed", ...rule.patch };
        // RPC callers name the fields in the mask, as REST derives it from the body.
        if (via !== "v2" && via !== "v1" && !input.updateMask) {
          input.updateMask = Object.keys(input).filter((f) => f !== "keyId")
            .flatMap((f) => (f === "credits" ? Object.keys(input.credits).map((sub) => `credits.${sub}`) : [f])).join(",");
        }
        await expectKeysUnchanged(harness, { apiIds: [apiId], keyIds: [keyId] }, () =>
          viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey).fails("keys.updateKey", input, "invalid", { detail: rule.detail }));
        expect(await harness.keyward.documents.identities.findByExternalId(harness.keyward.workspaceId, externalId)).toBeUndefined();
      }
      // The balance stayed with the key's identity: the key still spends it.
      expect(await verifyCode(harness, key)).toBe("VALID");
      const got = await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey);
      expect(got.body.data).toMatchObject({ name: "kept", identity: { externalId: "owner_kept" }, credits: { remaining: 4 } });
    });
  }

  it("answers 400 over RPC to a whole credits message with a refill but no balance, changing nothing", async () => {
    const apiId = await harness.seed.api({ name: "whole-credits" });
    const { keyId } = await harness.seed.key(apiId, { credits: { remaining: 5 } });
    for (const via of ["connect", "grpc", "grpcWeb"] as const) {
      await expectKeysUnchanged(harness, { keyIds: [keyId] }, () =>
        viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey).fails("keys.updateKey", {
          keyId, credits: { refill: { interval: "daily", amount: 5 } },
        }, "invalid", { detail: "A refill needs a credit balance" }));
    }
  });

  it("answers 400 to a refill for an unlimited key that sets no balance, changing nothing", async () => {
    const apiId = await harness.seed.api({ name: "unlimited" });
    const { keyId } = await harness.seed.key(apiId);
    for (const via of viasOf(OPERATIONS["keys.updateKey"])) {
      await expectKeysUnchanged(harness, { keyIds: [keyId] }, () =>
        viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey).fails("keys.updateKey", {
          keyId, credits: { refill: { interval: "daily", amount: 5 } },
          ...(via === "v2" || via === "v1" ? {} : { updateMask: "credits.refill" }),
        }, "invalid", { detail: "A refill needs a credit balance" }));
    }
  });
});
