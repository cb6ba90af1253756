import { describe, expect, it } from "vitest";
import { allPermissions } from "../../../src/domain/permissions.js";
import { expectFailure } from "../../support/expect-outcome.js";
import { useVerifyKit } from "../../support/verify-key.js";

describe("keys.verifyKey 403", () => {
  const kit = useVerifyKit();

  it("v2 answers 403 naming api.*.verify_key to a root key that holds no verify_key at all, spending nothing", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 3 } });
    const holders = [
      (await kit.harness.seed.rootKey(["api.*.read_api", "api.*.read_key"])).key,
      (await kit.harness.seed.rootKey([`api.${apiId}.read_key`, `api.${apiId}.create_key`])).key,
      (await kit.harness.seed.rootKeyWithout("api.*.verify_key")).key,
    ];
    for (const rootKey of holders) {
      const rest = await kit.verifier.send("v2", { key }, { rootKey });
      expectFailure({ via: "v2", rest }, "forbidden", { detail: "Missing permission: api.*.verify_key" });
      // Even for an unknown key: the permission check comes before any lookup.
      expectFailure({ via: "v2", rest: await kit.verifier.send("v2", { key: "unknown" }, { rootKey }) }, "forbidden");
    }
    expect(await kit.admin.balance(keyId)).toBe(3);
  });

  it("api.<apiId>.verify_key verifies that api's keys and answers NOT_FOUND (200) for other apis' keys", async () => {
    const mine = await kit.admin.api("scoped-api");
    const theirs = await kit.admin.api("unscoped-api");
    const own = await kit.admin.key(mine, { credits: { remaining: 2 } });
    const foreign = await kit.admin.key(theirs, { credits: { remaining: 2 }, name: "foreign" });
    const { key: rootKey } = await kit.harness.seed.rootKey([`api.${mine}.verify_key`]);
    const ok = await kit.verify("v2", { key: own.key }, { rootKey });
    expect({ code: ok.code, keyId: ok.payload.keyId, credits: ok.credits }).toEqual({ code: "VALID", keyId: own.keyId, credits: 1 });
    const hidden = await kit.verify("v2", { key: foreign.key }, { rootKey });
    expect(hidden.payload).toEqual({ valid: false, code: "NOT_FOUND" });
    expect(await kit.admin.balance(foreign.keyId)).toBe(2);
    // A root key with every permission sees both.
    const { key: everything } = await kit.harness.seed.rootKey(allPermissions());
    expect((await kit.verify("v2", { key: foreign.key }, { rootKey: everything })).code).toBe("VALID");
  });
});
