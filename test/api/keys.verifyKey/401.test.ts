import { describe, expect, it } from "vitest";
import { expectFailure } from "../../support/expect-outcome.js";
import { useVerifyKit, VERIFY_VIAS } from "../../support/verify-key.js";

describe("keys.verifyKey 401", () => {
  const kit = useVerifyKit();

  it("v2 answers 401 without a root key, with a malformed header and with an unknown, deleted or expired root key, spending nothing", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 3 } });
    const deleted = await kit.harness.seed.deletedRootKey();
    const expired = await kit.harness.seed.expiredRootKey();
    const cases: [string | null, string][] = [
      [null, "The Authorization header is missing"],
      ["kw_root_3yZe7d6kFkMnLtBk1oGpTqG1x5Ws", "The root key is unknown or revoked"],
      [deleted, "The root key is unknown or revoked"],
      [expired, "The root key has expired"],
      // The key being verified is not a root key.
      [key, "The root key is unknown or revoked"],
    ];
    for (const [rootKey, detail] of cases) {
      const rest = await kit.verifier.send("v2", { key }, { rootKey });
      expectFailure({ via: "v2", rest }, "unauthenticated", { detail });
    }
    const malformed = await fetch(`${kit.harness.keyward.baseUrl}/v2/keys.verifyKey`, {
      method: "POST", headers: { "content-type": "application/json", authorization: "Basic abc" }, body: JSON.stringify({ key }),
    });
    expect(malformed.status).toBe(401);
    expect(await kit.admin.balance(keyId)).toBe(3);
  });

  it("v2 authenticates before validating: a bad body without a root key is 401, not 400", async () => {
    for (const body of [{}, { key: "" }, "{not json", { key: "k", tags: Array(11).fill("t") }, { key: "k", unknown: 1 }]) {
      const rest = await kit.verifier.send("v2", body, { rootKey: null });
      expectFailure({ via: "v2", rest }, "unauthenticated", { detail: "The Authorization header is missing" });
    }
  });

  it("v1 keys.verifyKey and legacy /v1/keys/verify need no root key, and ignore any Authorization header", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 10 } });
    let left = 10;
    for (const via of ["v1", "legacy"] as const) {
      for (const rootKey of [undefined, "kw_root_unknown_1234", "Basic-looking-garbage"]) {
        const result = await kit.verify(via, { key, apiId }, { rootKey });
        left -= 1;
        expect({ via, rootKey, code: result.code, keyId: result.payload.keyId, credits: result.credits }).toEqual({ via, rootKey, code: "VALID", keyId, credits: left });
      }
    }
    expect(await kit.admin.balance(keyId)).toBe(left);
    for (const via of VERIFY_VIAS.filter((v) => v !== "v2")) {
      expect((await kit.verify(via, { key: "unknown" })).code).toBe("NOT_FOUND");
    }
  });
});
