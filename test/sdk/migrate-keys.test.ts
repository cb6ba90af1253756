import { Unkey as UnkeyV1 } from "unkey-v1";
import { Unkey } from "unkey-v2";
import { ForbiddenErrorResponse } from "unkey-v2/models/errors";
import { describe, expect, it } from "vitest";
import { foreignKey } from "../support/imports.js";
import { apiKeys } from "../support/key-state.js";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

describe("the Unkey SDKs' import calls against Keyward, unchanged", () => {
  const harness = useKeyward();
  const v2 = (rootKey = harness.keyward.rootKey) => new Unkey({ rootKey, serverURL: harness.keyward.baseUrl, retryConfig: { strategy: "none" } });
  const v1 = () => new UnkeyV1({ rootKey: harness.keyward.rootKey, baseUrl: harness.keyward.baseUrl, retry: { attempts: 0 }, disableTelemetry: true });
  const verify = async (key: string) => (await harness.rest.v2("keys.verifyKey", { key }, harness.keyward.rootKey)).body.data;

  it("@unkey/api 2.5 keys.migrateKeys: partial success parses as {migrated, failed: [hash]} and the imported keys verify", async () => {
    const apiId = await harness.seed.api({ name: "sdk-v2" });
    const [taken, fresh] = [foreignKey("sk"), foreignKey("sk")];
    await v2().keys.migrateKeys({ migrationId: "sha256_base64", apiId, keys: [{ hash: taken.base64 }] });
    const answer = await v2().keys.migrateKeys({
      migrationId: "sha256_base64", apiId,
      keys: [
        { hash: taken.base64 },
        { hash: fresh.base64, name: "from sdk", externalId: "sdk-user", meta: { plan: "team" }, credits: { remaining: 3 }, enabled: true },
      ],
    });
    expect(answer).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      data: { migrated: [{ hash: fresh.base64, keyId: expect.stringMatching(/^key_/) }], failed: [taken.base64] },
    });
    expect(await verify(fresh.plaintext)).toMatchObject({
      valid: true, keyId: answer.data.migrated[0].keyId, name: "from sdk", meta: { plan: "team" }, credits: 2, identity: { externalId: "sdk-user" },
    });
    expect(await apiKeys(harness, apiId)).toHaveLength(2);
  });

  it("@unkey/api 2.5 keys.migrateKeys without create_key throws its typed 403", async () => {
    const apiId = await harness.seed.api({ name: "sdk-v2-403" });
    const { key } = await harness.seed.rootKey(["api.*.read_key"]);
    const error = await v2(key).keys.migrateKeys({ migrationId: "sha256_hex", apiId, keys: [{ hash: foreignKey().hex }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenErrorResponse);
    expect((error as ForbiddenErrorResponse).data$.error.detail).toContain("api.*.create_key");
  });

  it("@unkey/api 0.38 migrations.createKeys (hash and plaintext) answers {keyIds}; enqueueKeys answers 202 and imports", async () => {
    const apiId = await harness.seed.api({ name: "sdk-v1" });
    const [hashed, plain] = [foreignKey("v1"), foreignKey("v1")];
    const created = await v1().migrations.createKeys([
      { apiId, hash: { value: hashed.base64, variant: "sha256_base64" }, start: "v1_abcd", ownerId: "v1-owner", remaining: 5 },
      { apiId, plaintext: plain.plaintext, name: "plain", ratelimit: { type: "fast", limit: 10, refillRate: 10, refillInterval: 60_000 } },
    ]);
    expect(created).toEqual({ result: { keyIds: [expect.stringMatching(/^key_/), expect.stringMatching(/^key_/)] } });
    expect(await verify(hashed.plaintext)).toMatchObject({ valid: true, keyId: created.result?.keyIds[0], credits: 4, identity: { externalId: "v1-owner" } });
    expect(await verify(plain.plaintext)).toMatchObject({ valid: true, keyId: created.result?.keyIds[1], name: "plain" });
    const queued = foreignKey("v1");
    const enqueued = await v1().migrations.enqueueKeys({ migrationId: "from-unkey", apiId, keys: [{ hash: { value: queued.base64, variant: "sha256_base64" } }] });
    expect(enqueued.error).toBeUndefined();
    await harness.keyward.migrations.idle();
    expect(await verify(queued.plaintext)).toMatchObject({ valid: true, code: "VALID" });
  });
});
