import { Unkey } from "unkey-v1";
import { describe, expect, it } from "vitest";
import { keyState } from "../support/key-state.js";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

const KEY_ID = /^key_[1-9A-HJ-NP-Za-km-z]+$/;

/** The v1 error body as Unkey's v1 SDK hands it back: `{ error: { code, message, docs, requestId } }`. */
const v1Error = (code: string, message: string) => ({
  error: {
    code,
    message: expect.stringContaining(message),
    docs: `https://keyward.dev/docs/api-reference/errors/code/${code}`,
    requestId: expect.stringMatching(REQUEST_ID),
  },
});

describe("@unkey/api 0.38 (v1 SDK) key lifecycle against Keyward", () => {
  const harness = useKeyward();
  const sdk = (rootKey = harness.keyward.rootKey) =>
    new Unkey({ rootKey, baseUrl: harness.keyward.baseUrl, retry: { attempts: 0 }, disableTelemetry: true });

  it("keys.create, get, verify, update, updateRemaining, listKeys and delete drive a key from birth to deletion", async () => {
    const unkey = sdk();
    const apiId = (await unkey.apis.create({ name: "sdk-v1-keys" })).result!.apiId;
    const expires = harness.clock.now() + 86_400_000;

    const created = await unkey.keys.create({
      apiId, prefix: "v1sdk", name: "lifecycle", ownerId: "sdk_owner", meta: { plan: "pro" }, expires, byteLength: 24,
      remaining: 10, refill: { interval: "monthly", amount: 10 }, ratelimit: { async: true, limit: 5, duration: 60_000 },
      enabled: true, environment: "test",
    });
    expect(created).toEqual({ result: { keyId: expect.stringMatching(KEY_ID), key: expect.stringMatching(/^v1sdk_[1-9A-HJ-NP-Za-km-z]+$/) } });
    const { keyId, key } = created.result!;
    const identityId = (await keyState(harness, keyId)).record?.identityId;

    expect(await unkey.keys.get({ keyId })).toEqual({
      result: {
        id: keyId, start: key.slice(0, 10), workspaceId: harness.keyward.workspaceId, apiId, name: "lifecycle", ownerId: "sdk_owner",
        meta: { plan: "pro" }, createdAt: harness.clock.now(), expires, remaining: 10,
        refill: { interval: "monthly", amount: 10, refillDay: 1 }, ratelimit: { async: false, limit: 5, duration: 60_000 },
        roles: [], permissions: [], enabled: true, identity: { id: identityId, externalId: "sdk_owner", meta: {} }, environment: "test",
      },
    });

    const verified = await unkey.keys.verify({ key, apiId });
    expect(verified.result).toMatchObject({ valid: true, code: "VALID", keyId, ownerId: "sdk_owner", remaining: 9, requestId: expect.stringMatching(REQUEST_ID) });
    const verifiedAt = harness.clock.now();
    await harness.keyward.stores.events.flush(); // the verification's event written: lastUsedAt from here on

    harness.clock.advance(1000);
    expect(await unkey.keys.update({ keyId, name: "renamed", meta: null, ownerId: null, ratelimit: null, remaining: 3 })).toEqual({ result: {} });
    const updated = (await unkey.keys.get({ keyId })).result!;
    expect(updated).toMatchObject({ name: "renamed", remaining: 3, updatedAt: harness.clock.now(), lastUsedAt: verifiedAt });
    for (const cleared of ["meta", "ownerId", "identity", "ratelimit"] as const) expect(updated[cleared]).toBeUndefined();

    expect(await unkey.keys.updateRemaining({ keyId, op: "decrement", value: 1 })).toEqual({ result: { remaining: 2 } });
    expect(await unkey.keys.updateRemaining({ keyId, op: "increment", value: 5 })).toEqual({ result: { remaining: 7 } });
    expect(await unkey.keys.updateRemaining({ keyId, op: "set", value: null })).toEqual({ result: { remaining: null } });
    expect((await unkey.keys.get({ keyId })).result!.remaining).toBeUndefined();

    expect(await unkey.keys.update({ keyId, enabled: false })).toEqual({ result: {} });
    expect((await unkey.keys.verify({ key })).result).toMatchObject({ valid: false, code: "DISABLED", keyId });

    harness.clock.advance(1000);
    await harness.keyward.stores.events.flush(); // the DISABLED verification counts as a use too
    const listed = await unkey.apis.listKeys({ apiId });
    expect(listed.result).toEqual({
      keys: [expect.objectContaining({ id: keyId, name: "renamed", enabled: false, lastUsedAt: harness.clock.now() - 1000 })], total: 1,
    });

    expect(await unkey.keys.delete({ keyId })).toEqual({ result: {} });
    expect(await unkey.keys.get({ keyId })).toEqual(v1Error("NOT_FOUND", `The key ${keyId} does not exist.`));
    expect((await unkey.keys.verify({ key })).result).toMatchObject({ valid: false, code: "NOT_FOUND" });
    expect(await unkey.apis.listKeys({ apiId })).toEqual({ result: { keys: [], total: 0 } });
    expect(await unkey.keys.delete({ keyId })).toEqual(v1Error("NOT_FOUND", keyId));
  });

  it("keys.delete with permanent erases the key", async () => {
    const unkey = sdk();
    const apiId = (await unkey.apis.create({ name: "sdk-v1-erase" })).result!.apiId;
    const { keyId } = (await unkey.keys.create({ apiId })).result!;
    harness.writes.clear();
    expect(await unkey.keys.delete({ keyId, permanent: true })).toEqual({ result: {} });
    expect(harness.writes.writes).toEqual([{ call: "keys.erase", id: keyId }]);
  });

  it("returns the v1 error bodies: BAD_REQUEST (also for increment on unlimited credits, as Unkey), NOT_FOUND, INSUFFICIENT_PERMISSIONS, UNAUTHORIZED", async () => {
    const unkey = sdk();
    const apiId = (await unkey.apis.create({ name: "sdk-v1-errors" })).result!.apiId;
    const { keyId } = (await unkey.keys.create({ apiId, name: "kept" })).result!;
    const { key: reader } = await harness.seed.rootKey(["api.*.read_key"]);
    harness.writes.clear();
    expect(await unkey.keys.create({ apiId, byteLength: 15 })).toEqual(v1Error("BAD_REQUEST", "byteLength"));
    expect(await unkey.keys.create({ apiId, prefix: "no-dashes" })).toEqual(v1Error("BAD_REQUEST", "prefix"));
    expect(await unkey.keys.update({ keyId: "key_1111111111111111111111", name: "x" })).toEqual(v1Error("NOT_FOUND", "does not exist"));
    expect(await unkey.keys.updateRemaining({ keyId, op: "increment", value: 1 })).toEqual(v1Error("BAD_REQUEST", "unlimited credits"));
    expect(await sdk(reader).keys.update({ keyId, name: "nope" })).toEqual(v1Error("INSUFFICIENT_PERMISSIONS", "Missing permission: api.*.update_key"));
    expect(await sdk("kw_root_not_a_real_key").keys.get({ keyId })).toEqual(v1Error("UNAUTHORIZED", "The root key is unknown or revoked"));
    expect(harness.writes.writes).toEqual([]);
    expect((await unkey.keys.get({ keyId })).result).toMatchObject({ id: keyId, name: "kept" });
  });
});
