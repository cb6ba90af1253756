import { describe, expect, it } from "vitest";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["identities.getIdentity"];
const inputFor = (via: string, value: string, by: "identityId" | "externalId") => (via === "v1" ? { [by]: value } : { identity: value });

describe("identities.getIdentity", () => {
  const harness = useKeyward();
  const v2 = (path: string, body: unknown, key = harness.keyward.rootKey) => harness.rest.v2(path, body, key);

  it("answers 404 for an identity id or external id that never existed, on every transport", async () => {
    for (const via of viasOf(op)) {
      for (const [value, by] of [["id_1111111111111111111111", "identityId"], ["nobody", "externalId"]] as const) {
        await expectRefusal(harness, {
          via, op: "identities.getIdentity", input: inputFor(via, value, by), authorization: bearerOf(harness.keyward.rootKey),
          kind: "not_found", detail: `The identity ${value} does not exist.`,
        });
      }
    }
  });

  it("answers 404 for a deleted identity, by id and by external id", async () => {
    const { identityId } = (await v2("identities.createIdentity", { externalId: "deleted_one" })).body.data;
    expect((await v2("identities.deleteIdentity", { identity: identityId })).status).toBe(200);
    for (const via of viasOf(op)) {
      for (const [value, by] of [[identityId, "identityId"], ["deleted_one", "externalId"]] as const) {
        await expectRefusal(harness, {
          via, op: "identities.getIdentity", input: inputFor(via, value, by), authorization: bearerOf(harness.keyward.rootKey),
          kind: "not_found", detail: value,
        });
      }
    }
  });

  it("answers 404, never 403, for an identity of another workspace, even to a key granted that identity id", async () => {
    const { identityId } = (await v2("identities.createIdentity", { externalId: "home_identity" })).body.data;
    const other = await harness.seed.workspace();
    const named = await harness.seed.rootKey([`identity.${identityId}.read_identity`], { by: other.rootKey.key });
    for (const key of [other.rootKey.key, named.key]) {
      for (const via of viasOf(op)) {
        for (const [value, by] of [[identityId, "identityId"], ["home_identity", "externalId"]] as const) {
          await expectRefusal(harness, {
            via, op: "identities.getIdentity", input: inputFor(via, value, by), authorization: bearerOf(key), kind: "not_found", detail: value,
          });
        }
      }
    }
  });
});
