import { describe, expect, it } from "vitest";
import { expectFailure } from "../../support/expect-outcome.js";
import { apiKeys } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.legacy (POST /v1/keys)", () => {
  const harness = useKeyward();

  it("answers 401 without a root key, with an unknown one and with a deleted one, before looking at the body", async () => {
    const apiId = await harness.seed.api({ name: "legacy-auth" });
    const deleted = await harness.seed.deletedRootKey();
    const cases: [string | undefined, string][] = [
      [undefined, "The Authorization header is missing"],
      ["kw_root_unknown_key_1234", "The root key is unknown or revoked"],
      [deleted, "The root key is unknown or revoked"],
    ];
    for (const [rootKey, detail] of cases) {
      for (const body of [{ apiId }, { apiId, prefix: "much_too_long" }, "{not json"]) {
        const rest = await harness.rest.v1Post("keys", body, rootKey);
        expectFailure({ via: "v1", rest }, "unauthenticated", { detail });
      }
    }
    expect(await apiKeys(harness, apiId)).toEqual([]);
  });

  it("answers 403 naming api.*.create_key to a root key without it", async () => {
    const apiId = await harness.seed.api({ name: "legacy-forbidden" });
    const { key } = await harness.seed.rootKeyWithout("api.*.create_key");
    const rest = await harness.rest.v1Post("keys", { apiId }, key);
    expectFailure({ via: "v1", rest }, "forbidden", { detail: "Missing permission: api.*.create_key" });
    expect(await apiKeys(harness, apiId)).toEqual([]);
  });
});
