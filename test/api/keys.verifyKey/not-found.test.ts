import { describe, expect, it } from "vitest";
import { keyAdmin, useVerifyKit, VERIFY_VIAS, type Verification } from "../../support/verify-key.js";

/** NOT_FOUND carries no key data: exactly `{valid:false, code}` (v2 data) or plus the requestId (v1, legacy). */
function expectBareNotFound(result: Verification) {
  const requestId = result.response.headers.get("x-request-id");
  const expected = result.via === "v2" ? { valid: false, code: "NOT_FOUND" } : { valid: false, code: "NOT_FOUND", requestId };
  expect({ via: result.via, payload: result.payload }).toEqual({ via: result.via, payload: expected });
}

describe("keys.verifyKey NOT_FOUND", () => {
  const kit = useVerifyKit();

  it("answers NOT_FOUND with 200 and no key data for a key that never existed, on every door", async () => {
    for (const via of VERIFY_VIAS) {
      expectBareNotFound(await kit.verify(via, { key: "3yZe7d6kFkMnLtBk1oGpTq" }));
      expectBareNotFound(await kit.verify(via, { key: "x" }));
    }
  });

  it("answers NOT_FOUND for an unknown key even when apiId names a real api (v1, legacy)", async () => {
    const apiId = await kit.admin.api();
    for (const via of ["v1", "legacy"] as const) expectBareNotFound(await kit.verify(via, { key: "unknown_key_123", apiId }));
  });

  it("answers NOT_FOUND for a deleted key, soft or permanent", async () => {
    const apiId = await kit.admin.api();
    const soft = await kit.admin.key(apiId, { credits: { remaining: 3 } });
    const permanent = await kit.admin.key(apiId);
    expect((await kit.verify("v2", { key: soft.key })).code).toBe("VALID");
    await kit.admin.ok("keys.deleteKey", { keyId: soft.keyId });
    await kit.admin.ok("keys.deleteKey", { keyId: permanent.keyId, permanent: true });
    for (const via of VERIFY_VIAS) {
      expectBareNotFound(await kit.verify(via, { key: soft.key }));
      expectBareNotFound(await kit.verify(via, { key: permanent.key, apiId }));
    }
  });

  it("answers NOT_FOUND for a key of a deleted api", async () => {
    const apiId = await kit.admin.api("doomed-api");
    const { key } = await kit.admin.key(apiId, { name: "orphan" });
    await kit.admin.ok("apis.deleteApi", { apiId });
    for (const via of VERIFY_VIAS) expectBareNotFound(await kit.verify(via, { key, apiId }));
  });

  it("v2 answers NOT_FOUND for another workspace's key and spends none of its credits; its own root key sees it", async () => {
    const other = await kit.harness.seed.workspace("verify-other");
    const theirs = keyAdmin(kit.harness.keyward.baseUrl, other.rootKey.key);
    const apiId = await theirs.api("their-api");
    const { keyId, key } = await theirs.key(apiId, { name: "theirs", credits: { remaining: 5 }, meta: { secret: true } });
    for (let i = 0; i < 3; i++) expectBareNotFound(await kit.verify("v2", { key }));
    expect(await theirs.balance(keyId)).toBe(5);
    const own = await kit.verify("v2", { key }, { rootKey: other.rootKey.key });
    expect({ code: own.code, keyId: own.payload.keyId, credits: own.credits }).toEqual({ code: "VALID", keyId, credits: 4 });
  });

  it("v2 answers NOT_FOUND for a key whose api the root key may not verify, and VALID for the api it may", async () => {
    const allowedApi = await kit.admin.api("allowed-api");
    const hiddenApi = await kit.admin.api("hidden-api");
    const allowed = await kit.admin.key(allowedApi, { credits: { remaining: 10 } });
    const hidden = await kit.admin.key(hiddenApi, { name: "hidden", credits: { remaining: 10 }, permissions: ["p"] });
    const { key: scoped } = await kit.harness.seed.rootKey([`api.${allowedApi}.verify_key`]);
    for (let i = 0; i < 2; i++) expectBareNotFound(await kit.verify("v2", { key: hidden.key }, { rootKey: scoped }));
    expect(await kit.admin.balance(hidden.keyId)).toBe(10);
    const ok = await kit.verify("v2", { key: allowed.key }, { rootKey: scoped });
    expect({ code: ok.code, keyId: ok.payload.keyId, credits: ok.credits }).toEqual({ code: "VALID", keyId: allowed.keyId, credits: 9 });
  });
});
