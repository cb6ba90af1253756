import { Unkey } from "unkey-v2";
import {
  BadRequestErrorResponse, ForbiddenErrorResponse, NotFoundErrorResponse, UnauthorizedErrorResponse, UnkeyError,
} from "unkey-v2/models/errors";
import { describe, expect, it } from "vitest";
import { keyState } from "../support/key-state.js";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

const KEY_ID = /^key_[1-9A-HJ-NP-Za-km-z]+$/;
const meta = { requestId: expect.stringMatching(REQUEST_ID) };

/** Runs `call`, which must throw; returns what it threw. */
async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

/** A typed v2 error carries the status and Keyward's problem body. */
function expectTyped(error: unknown, type: new (...args: never[]) => UnkeyError, status: number, detail: string) {
  expect(error).toBeInstanceOf(type);
  const typed = error as UnkeyError & { error: { detail: string; status: number } };
  expect(typed.statusCode).toBe(status);
  expect(typed.error).toMatchObject({ status, detail: expect.stringContaining(detail) });
}

describe("@unkey/api 2.5 (v2 SDK) key lifecycle against Keyward", () => {
  const harness = useKeyward();
  const sdk = (rootKey = harness.keyward.rootKey) =>
    new Unkey({ rootKey, serverURL: harness.keyward.baseUrl, retryConfig: { strategy: "none" } });

  it("createKey, getKey, whoami, verifyKey, updateKey, updateCredits, rerollKey and deleteKey parse and return the server's values", async () => {
    const unkey = sdk();
    const { apiId } = (await unkey.apis.createApi({ name: "sdk-v2-keys" })).data;
    const expires = harness.clock.now() + 86_400_000;

    const created = await unkey.keys.createKey({
      apiId, prefix: "v2sdk", name: "lifecycle", externalId: "sdk_user", meta: { plan: "pro" }, expires,
      permissions: ["docs.read"], roles: ["reader"],
      credits: { remaining: 10, refill: { interval: "monthly", amount: 10, refillDay: 5 } },
      ratelimits: [{ name: "requests", limit: 5, duration: 60_000, autoApply: true }],
    });
    expect(created).toEqual({ meta, data: { keyId: expect.stringMatching(KEY_ID), key: expect.stringMatching(/^v2sdk_/) } });
    const { keyId, key } = created.data;
    const { record } = await keyState(harness, keyId);

    const expected = {
      keyId, start: key.slice(0, 10), enabled: true, name: "lifecycle", meta: { plan: "pro" }, createdAt: harness.clock.now(), expires,
      permissions: ["docs.read"], roles: ["reader"],
      credits: { remaining: 10, refill: { interval: "monthly", amount: 10, refillDay: 5 } },
      identity: { id: record?.identityId, externalId: "sdk_user", meta: {}, ratelimits: [] },
      ratelimits: [{ id: record?.ratelimits[0].id, name: "requests", limit: 5, duration: 60_000, autoApply: true }],
    };
    expect(await unkey.keys.getKey({ keyId })).toEqual({ meta, data: expected });
    expect(await unkey.keys.whoami({ key })).toEqual({ meta, data: expected });

    const verified = await unkey.keys.verifyKey({ key });
    expect(verified.data).toMatchObject({ valid: true, code: "VALID", keyId, credits: 9 });
    const verifiedAt = harness.clock.now();
    await harness.keyward.stores.events.flush(); // the SDK's zod schema takes lastUsedAt from here on

    harness.clock.advance(1000);
    expect(await unkey.keys.updateKey({ keyId, name: null, meta: { plan: "team" }, externalId: null, credits: { remaining: 4 } }))
      .toEqual({ meta, data: {} });
    const updated = (await unkey.keys.getKey({ keyId })).data;
    expect(updated).toEqual({
      ...expected, name: undefined, identity: undefined, meta: { plan: "team" }, updatedAt: harness.clock.now(), lastUsedAt: verifiedAt,
      credits: { remaining: 4, refill: { interval: "monthly", amount: 10, refillDay: 5 } },
    });

    expect(await unkey.keys.updateCredits({ keyId, operation: "decrement", value: 10 })).toEqual({
      meta, data: { remaining: 0, refill: { interval: "monthly", amount: 10, refillDay: 5 } },
    });
    expect((await unkey.keys.verifyKey({ key })).data).toMatchObject({ valid: false, code: "USAGE_EXCEEDED", credits: 0 });
    expect(await unkey.keys.updateCredits({ keyId, operation: "increment", value: 2 })).toMatchObject({ data: { remaining: 2 } });
    expect(await unkey.keys.updateCredits({ keyId, operation: "set", value: null })).toEqual({ meta, data: { remaining: null } });
    expect((await unkey.keys.getKey({ keyId })).data.credits).toBeUndefined();
    expect((await unkey.keys.verifyKey({ key })).data.credits).toBeUndefined();

    const rolled = await unkey.keys.rerollKey({ keyId, expiration: 0 });
    expect(rolled).toEqual({ meta, data: { keyId: expect.stringMatching(KEY_ID), key: expect.stringMatching(/^v2sdk_/) } });
    expect((await unkey.keys.verifyKey({ key })).data).toEqual({ valid: false, code: "NOT_FOUND" });
    expect((await unkey.keys.verifyKey({ key: rolled.data.key })).data).toMatchObject({ valid: true, code: "VALID", keyId: rolled.data.keyId });
    expect((await unkey.keys.getKey({ keyId: rolled.data.keyId })).data).toMatchObject({ meta: { plan: "team" }, permissions: ["docs.read"] });

    expect(await unkey.keys.deleteKey({ keyId: rolled.data.keyId })).toEqual({ meta, data: {} });
    expect((await unkey.keys.verifyKey({ key: rolled.data.key })).data).toEqual({ valid: false, code: "NOT_FOUND" });
    expectTyped(await thrown(() => unkey.keys.getKey({ keyId: rolled.data.keyId })), NotFoundErrorResponse, 404, "does not exist");
    expectTyped(await thrown(() => unkey.keys.deleteKey({ keyId: rolled.data.keyId, permanent: true })), NotFoundErrorResponse, 404, "does not exist");
  });

  it("updateKey with a nested credits body changes the named parts: a new refill keeps the balance, null removes it", async () => {
    const unkey = sdk();
    const { apiId } = (await unkey.apis.createApi({ name: "sdk-v2-refill" })).data;
    const { keyId } = (await unkey.keys.createKey({ apiId, credits: { remaining: 8 } })).data;
    await unkey.keys.updateKey({ keyId, credits: { refill: { interval: "monthly", amount: 30, refillDay: 15 } } });
    expect((await unkey.keys.getKey({ keyId })).data.credits).toEqual({ remaining: 8, refill: { interval: "monthly", amount: 30, refillDay: 15 } });
    await unkey.keys.updateKey({ keyId, credits: { remaining: 2, refill: { interval: "daily", amount: 2 } } });
    expect((await unkey.keys.getKey({ keyId })).data.credits).toEqual({ remaining: 2, refill: { interval: "daily", amount: 2 } });
    await unkey.keys.updateKey({ keyId, credits: { refill: null } });
    expect((await unkey.keys.getKey({ keyId })).data.credits).toEqual({ remaining: 2 });
    await unkey.keys.updateKey({ keyId, credits: null });
    expect((await unkey.keys.getKey({ keyId })).data.credits).toBeUndefined();
  });

  it("apis.listKeys pages through 7 keys by 3 and its iterator stops after the last page", async () => {
    const unkey = sdk();
    const { apiId } = (await unkey.apis.createApi({ name: "sdk-v2-paged" })).data;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      harness.clock.advance(1);
      ids.push((await unkey.keys.createKey({ apiId, name: `k${i}`, credits: i % 2 ? { remaining: i } : undefined })).data.keyId);
    }
    const first = await unkey.apis.listKeys({ apiId, limit: 3 });
    expect(first.result.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
    const pages: string[][] = [];
    for await (const page of first) {
      pages.push(page.result.data.map((k) => k.keyId));
      if (pages.length > 5) break;
    }
    expect(pages).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
    const all = (await unkey.apis.listKeys({ apiId })).result.data;
    expect(all.map((k) => [k.name, k.credits?.remaining])).toEqual([
      ["k0", undefined], ["k1", 1], ["k2", undefined], ["k3", 3], ["k4", undefined], ["k5", 5], ["k6", undefined],
    ]);
    expect(all.every((k) => k.plaintext === undefined)).toBe(true);
  });

  it("throws the typed errors: 400 with errors[], 403 naming the permission, 401, and changes nothing", async () => {
    const unkey = sdk();
    const { apiId } = (await unkey.apis.createApi({ name: "sdk-v2-errors" })).data;
    const { keyId } = (await unkey.keys.createKey({ apiId, name: "kept", credits: { remaining: 5 } })).data;
    const { key: reader } = await harness.seed.rootKey(["api.*.read_key"]);
    harness.writes.clear();

    const bad = await thrown(() => unkey.keys.createKey({ apiId, byteLength: 15 }));
    expectTyped(bad, BadRequestErrorResponse, 400, "byteLength");
    expect((bad as BadRequestErrorResponse).error.errors).toEqual([{ location: "body.byteLength", message: expect.any(String) }]);
    const dup = await thrown(() => unkey.keys.createKey({
      apiId, ratelimits: [{ name: "rps", limit: 1, duration: 1000 }, { name: "rps", limit: 2, duration: 1000 }],
    }));
    expectTyped(dup, BadRequestErrorResponse, 400, 'Two rate limits are named "rps"');
    expectTyped(await thrown(() => unkey.keys.updateCredits({ keyId, operation: "increment" })), BadRequestErrorResponse, 400, "needs a value");

    expectTyped(await thrown(() => sdk(reader).keys.updateKey({ keyId, name: "nope" })), ForbiddenErrorResponse, 403, "Missing permission: api.*.update_key");
    expectTyped(await thrown(() => sdk(reader).keys.getKey({ keyId, decrypt: true })), ForbiddenErrorResponse, 403, "api.*.decrypt_key");
    expectTyped(await thrown(() => sdk("kw_root_not_real").keys.deleteKey({ keyId })), UnauthorizedErrorResponse, 401, "unknown or revoked");

    expect(harness.writes.writes).toEqual([]);
    expect((await unkey.keys.getKey({ keyId })).data).toMatchObject({ name: "kept", credits: { remaining: 5 } });
  });
});
