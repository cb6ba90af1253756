import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { expectPreconditionFailed, restV1, V2_AND_RPC, viaClient, type ViaClient } from "../../support/vias.js";
import type { Via } from "../../support/operations.js";

/** The settings of a new api: no allow-list, no protection, no stored keys, no prefix, 16 bytes. */
const NEW_API = { ipWhitelist: [], deleteProtection: false, storeEncryptedKeys: false, defaultBytes: 16 };

/** A payload as plain JSON-ish values: RPC messages carry `$typeName` and the proto3 defaults. */
function settingsOf(payload: Record<string, unknown>) {
  const { id, name, workspaceId, ipWhitelist, deleteProtection, storeEncryptedKeys, defaultPrefix, defaultBytes } = payload;
  return { id, name, workspaceId, ipWhitelist, deleteProtection, storeEncryptedKeys, defaultBytes, ...(defaultPrefix !== undefined && { defaultPrefix }) };
}

/** The random part's length in base58 characters: 16 bytes give 21-22, 64 bytes 86-88. */
const randomPartOf = (key: string, prefix?: string) => (prefix ? key.slice(prefix.length + 1) : key);

describe("apis.updateApi", () => {
  const harness = useKeyward();
  const via = (name: Via): ViaClient => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  it("changes every setting at once on every transport, answers the api as changed, and getApi shows it", async () => {
    for (const name of V2_AND_RPC) {
      const apiId = await harness.seed.api({ name: `settings-${name}` });
      const changes = {
        apiId, name: `renamed-${name}`, ipWhitelist: ["10.0.0.0/8", "2001:db8::/32", "192.0.2.7", "::1"], deleteProtection: true,
        storeEncryptedKeys: true, defaultPrefix: "acme", defaultBytes: 64,
      };
      const expected = {
        id: apiId, name: `renamed-${name}`, workspaceId: harness.keyward.workspaceId, ipWhitelist: changes.ipWhitelist,
        deleteProtection: true, storeEncryptedKeys: true, defaultPrefix: "acme", defaultBytes: 64,
      };
      expect(settingsOf(await via(name).ok("apis.updateApi", changes))).toEqual(expected);
      expect(settingsOf(await via(name).ok("apis.getApi", { apiId }))).toEqual(expected);
      const stored = await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId);
      expect(stored).toMatchObject({ name: `renamed-${name}`, ipWhitelist: changes.ipWhitelist, deleteProtection: true, storeEncryptedKeys: true, defaultPrefix: "acme", defaultBytes: 64, revision: 1 });
    }
  });

  it("leaves fields out of the request as they were; REST null and an RPC update mask reset them to a new api's", async () => {
    for (const name of V2_AND_RPC) {
      const apiId = await harness.seed.api({ name: `partial-${name}` });
      await via(name).ok("apis.updateApi", { apiId, ipWhitelist: ["10.1.0.0/16"], deleteProtection: true, defaultPrefix: "pre", defaultBytes: 32 });
      const renamed = settingsOf(await via(name).ok("apis.updateApi", { apiId, name: `only-name-${name}` }));
      expect(renamed).toMatchObject({ name: `only-name-${name}`, ipWhitelist: ["10.1.0.0/16"], deleteProtection: true, defaultPrefix: "pre", defaultBytes: 32 });
      const clear = name === "v2"
        ? { apiId, ipWhitelist: null, deleteProtection: null, defaultPrefix: null, defaultBytes: null }
        : { apiId, updateMask: "ipWhitelist,deleteProtection,defaultPrefix,defaultBytes" };
      const cleared = settingsOf(await via(name).ok("apis.updateApi", clear));
      expect(cleared).toEqual({ id: apiId, name: `only-name-${name}`, workspaceId: harness.keyward.workspaceId, ...NEW_API });
      const stored = await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId);
      expect(stored && ["ipWhitelist", "defaultPrefix", "defaultBytes"].filter((field) => field in stored)).toEqual([]);
    }
    // REST's empty list clears the allow-list as null does.
    const apiId = await harness.seed.api({ name: "empty-list" });
    await via("v2").ok("apis.updateApi", { apiId, ipWhitelist: ["192.0.2.1"] });
    expect((await via("v2").ok("apis.updateApi", { apiId, ipWhitelist: [] })).ipWhitelist).toEqual([]);
  });

  it("new keys take the api's default prefix and byte length when createKey names none; named ones win; on v1 too", async () => {
    const apiId = await harness.seed.api({ name: "keyspace" });
    const plain = await harness.seed.key(apiId);
    expect(plain.key).not.toContain("_");
    expect(randomPartOf(plain.key).length).toBeLessThanOrEqual(22);
    await via("v2").ok("apis.updateApi", { apiId, defaultPrefix: "acme", defaultBytes: 64 });

    const v2 = await harness.seed.key(apiId);
    const v1 = await via(restV1).ok("keys.createKey", { apiId });
    const legacy = await harness.rest.raw("/v1/keys", {
      method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${harness.keyward.rootKey}` }, body: JSON.stringify({ apiId }),
    });
    expect(legacy.status).toBe(200);
    const rpc = await via("connect").ok("keys.createKey", { apiId });
    for (const key of [v2.key, v1.key, legacy.body.key, rpc.key] as string[]) {
      expect(key.startsWith("acme_")).toBe(true);
      expect(randomPartOf(key, "acme").length).toBeGreaterThanOrEqual(84);
      expect(randomPartOf(key, "acme").length).toBeLessThanOrEqual(88);
    }
    const stored = await harness.keyward.documents.keys.get(harness.keyward.workspaceId, v2.keyId);
    expect(stored?.start).toBe(`acme_${randomPartOf(v2.key, "acme").slice(0, 4)}`);

    const named = await harness.seed.key(apiId, { prefix: "own", byteLength: 16 });
    expect(named.key.startsWith("own_")).toBe(true);
    expect(randomPartOf(named.key, "own").length).toBeLessThanOrEqual(22);
    // A key made under the defaults verifies like any other.
    expect((await via("v2").ok("keys.verifyKey", { key: v2.key })).valid).toBe(true);
  });

  it("delete protection turned on here refuses apis.deleteApi (412) until turned off again", async () => {
    const apiId = await harness.seed.api({ name: "protected-later" });
    await via("grpc").ok("apis.updateApi", { apiId, deleteProtection: true });
    expectPreconditionFailed(await via("v2").call("apis.deleteApi", { apiId }), { v1Code: "DELETE_PROTECTED", detail: "protected from deletion" });
    await via("grpc").ok("apis.updateApi", { apiId, deleteProtection: false });
    await via("v2").ok("apis.deleteApi", { apiId });
    await via("v2").fails("apis.getApi", { apiId }, "not_found");
  });

  it("writes one api.update audit record naming the api, with the caller's root key and request id", async () => {
    const apiId = await harness.seed.api({ name: "audited-settings" });
    const { key, keyId } = await harness.seed.rootKey([`api.${apiId}.update_api`]);
    const outcome = await via("v2").call("apis.updateApi", { apiId, ipWhitelist: ["198.51.100.0/24"] }, key);
    expect(outcome.via === "v2" && outcome.rest.status).toBe(200);
    const requestId = outcome.via === "v2" ? outcome.rest.headers.get("x-request-id") : undefined;
    const page = (await harness.rest.v2("auditLogs.list", { actions: ["api.update"], resourceId: apiId }, harness.keyward.rootKey)).body.data;
    expect(page.map((r: Record<string, unknown>) => [r.action, r.actor, r.requestId, r.resources])).toEqual([
      ["api.update", keyId, requestId, [{ type: "api", id: apiId }]],
    ]);
  });
});
