import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { RPC_VIAS } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC } from "../../support/vias.js";

const API = "api_1111111111111111111111";

describe("apis.updateApi", () => {
  const harness = useKeyward();

  badInputCases(harness, "apis.updateApi", [
    ...NOT_AN_OBJECT,
    { what: "no apiId", input: { name: "renamed" }, locations: ["body.apiId"], detail: "apiId" },
    { what: "a name of 2 characters", input: { apiId: API, name: "ab" }, locations: ["body.name"], detail: "name" },
    { what: "a default byte length of 15", input: { apiId: API, defaultBytes: 15 }, locations: ["body.defaultBytes"], detail: "defaultBytes" },
    { what: "a default byte length of 256", input: { apiId: API, defaultBytes: 256 }, locations: ["body.defaultBytes"], detail: "defaultBytes" },
    { what: "a default prefix with a dash", input: { apiId: API, defaultPrefix: "my-app" }, locations: ["body.defaultPrefix"], detail: "defaultPrefix" },
    { what: "a default prefix of 17 characters", input: { apiId: API, defaultPrefix: "p".repeat(17) }, locations: ["body.defaultPrefix"], detail: "defaultPrefix" },
    { what: "a string for the allow-list", input: { apiId: API, ipWhitelist: "10.0.0.1" }, locations: ["body.ipWhitelist"] },
    { what: "101 allow-list entries", input: { apiId: API, ipWhitelist: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) }, locations: ["body.ipWhitelist"], detail: "ipWhitelist" },
    { what: "a number for deleteProtection", input: { apiId: API, deleteProtection: 1 }, locations: ["body.deleteProtection"] },
    { what: "an unknown field", input: { apiId: API, ipAllowList: ["10.0.0.1"] }, locations: ["body.ipAllowList"] },
  ]);

  badRpcCases(harness, "apis.updateApi", [
    { what: "a short api id", input: { apiId: "x" }, field: "apiId: must be at least 8 characters" },
    { what: "a default byte length of 15", input: { apiId: API, defaultBytes: 15 }, field: "defaultBytes: must be greater than or equal to 16" },
    { what: "a default prefix with a dash", input: { apiId: API, defaultPrefix: "my-app" }, field: "defaultPrefix: does not match regex pattern" },
  ]);

  it("refuses an allow-list entry that is no address or CIDR range with 400 naming the entry, on every transport, changing nothing", async () => {
    const apiId = await harness.seed.api({ name: "allow-list-400" });
    const bad = ["1.2.3", "10.0.0.0/33", "::1/129", "01.2.3.4", "localhost", "10.0.0.1 ", "fe80::1%eth0", "1.2.3.4-1.2.3.9"];
    for (const via of V2_AND_RPC) {
      for (const entry of bad) {
        const outcome = await expectRefusal(harness, {
          via, op: "apis.updateApi", input: { apiId, name: "not-this", ipWhitelist: ["10.0.0.1", entry] }, authorization: bearerOf(harness.keyward.rootKey),
          kind: "invalid", detail: `ipWhitelist[1]: ${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR range`,
          locations: via === "v2" ? ["body.ipWhitelist[1]"] : undefined,
        });
        expect(outcome.via).toBe(via);
      }
    }
    const api = await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId);
    expect({ name: api?.name, ipWhitelist: api?.ipWhitelist }).toEqual({ name: "allow-list-400", ipWhitelist: undefined });
  });

  it("refuses clearing the name (REST null, RPC mask) and an unknown mask path, changing nothing", async () => {
    const apiId = await harness.seed.api({ name: "keeps-its-name" });
    await expectRefusal(harness, {
      via: "v2", op: "apis.updateApi", input: { apiId, name: null }, authorization: bearerOf(harness.keyward.rootKey), kind: "invalid",
      locations: ["body.name"], detail: "The name cannot be cleared",
    });
    for (const via of RPC_VIAS) {
      for (const [updateMask, detail] of [["name", "The name cannot be cleared"], ["createdAt", "Cannot update created_at"]]) {
        await expectRefusal(harness, {
          via, op: "apis.updateApi", input: { apiId, updateMask }, authorization: bearerOf(harness.keyward.rootKey), kind: "invalid", detail,
        });
      }
    }
    expect((await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId))?.name).toBe("keeps-its-name");
  });
});
