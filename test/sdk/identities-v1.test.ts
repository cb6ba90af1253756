import { Unkey } from "unkey-v1";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

const IDENTITY_ID = expect.stringMatching(/^id_[1-9A-HJ-NP-Za-km-z]+$/);

const v1Error = (code: string, message: string) => ({
  error: {
    code, message: expect.stringContaining(message), docs: `https://keyward.dev/docs/api-reference/errors/code/${code}`,
    requestId: expect.stringMatching(REQUEST_ID),
  },
});

describe("@unkey/api 0.38 (v1 SDK) identities against Keyward", () => {
  const harness = useKeyward();
  const sdk = (rootKey = harness.keyward.rootKey) =>
    new Unkey({ rootKey, baseUrl: harness.keyward.baseUrl, retry: { attempts: 0 }, disableTelemetry: true });

  it("identities.create, get, update, list and delete, with keys linked by ownerId sharing the identity's limit", async () => {
    const unkey = sdk();
    const created = await unkey.identities.create({ externalId: "sdk_v1_user", meta: { plan: "pro" }, ratelimits: [{ name: "requests", limit: 10, duration: 60_000 }] });
    expect(created).toEqual({ result: { identityId: IDENTITY_ID } });
    const identityId = created.result!.identityId;
    const identity = { id: identityId, externalId: "sdk_v1_user", meta: { plan: "pro" }, ratelimits: [{ name: "requests", limit: 10, duration: 60_000 }] };
    expect(await unkey.identities.get({ identityId })).toEqual({ result: identity });
    expect(await unkey.identities.get({ externalId: "sdk_v1_user" })).toEqual({ result: identity });

    // v1 limits are not autoApply: a key verification names them.
    const apiId = (await unkey.apis.create({ name: "sdk-v1-identities" })).result!.apiId;
    const a = (await unkey.keys.create({ apiId, ownerId: "sdk_v1_user" })).result!;
    const b = (await unkey.keys.create({ apiId, ownerId: "sdk_v1_user" })).result!;
    const codes: string[] = [];
    for (let i = 0; i < 12; i++) {
      codes.push((await unkey.keys.verify({ key: i % 2 ? a.key : b.key, ratelimits: [{ name: "requests" }] })).result!.code);
    }
    expect(codes).toEqual([...Array(10).fill("VALID"), "RATE_LIMITED", "RATE_LIMITED"]);
    expect((await unkey.keys.get({ keyId: a.keyId })).result).toMatchObject({ ownerId: "sdk_v1_user", identity: { id: identityId, externalId: "sdk_v1_user", meta: { plan: "pro" } } });

    const updated = await unkey.identities.update({ externalId: "sdk_v1_user", meta: { plan: "team" }, ratelimits: [] });
    expect(updated).toEqual({ result: { ...identity, meta: { plan: "team" }, ratelimits: [] } });
    expect((await unkey.keys.verify({ key: a.key })).result).toMatchObject({ valid: true, identity: { id: identityId, meta: { plan: "team" } } });

    expect(await unkey.identities.list({ limit: 10 })).toEqual({ result: { identities: [{ ...identity, meta: { plan: "team" }, ratelimits: [] }], total: 1 } });
    expect(await unkey.identities.delete({ identityId })).toEqual({ result: {} });
    expect(await unkey.identities.get({ identityId })).toEqual(v1Error("NOT_FOUND", identityId));
    expect((await unkey.keys.verify({ key: b.key })).result).toMatchObject({ valid: true, code: "VALID" });
    expect((await unkey.keys.verify({ key: b.key })).result!.identity).toBeUndefined();
  });

  it("identities.list pages 250 identities by 100 through the cursor, each exactly once and in order", async () => {
    const other = await harness.seed.workspace("sdk-v1-list");
    const unkey = sdk(other.rootKey.key);
    const expected: string[] = [];
    for (let i = 0; i < 250; i++) {
      harness.clock.advance(1);
      expected.push((await unkey.identities.create({ externalId: `v1_${i}` })).result!.identityId);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await unkey.identities.list({ limit: 100, ...(cursor ? { cursor } : {}) })).result!;
      expect(page.total).toBe(250);
      seen.push(...page.identities.map((i) => i.id));
      cursor = page.cursor;
    } while (cursor);
    expect(seen).toEqual(expected);
  });

  it("returns the v1 error bodies: BAD_REQUEST, CONFLICT, NOT_FOUND, INSUFFICIENT_PERMISSIONS; nothing written", async () => {
    const unkey = sdk();
    await unkey.identities.create({ externalId: "sdk_v1_taken" });
    const { key: reader } = await harness.seed.rootKey(["identity.*.read_identity"]);
    harness.writes.clear();
    expect(await unkey.identities.create({ externalId: "xyz", ratelimits: [{ name: "r", limit: 1, duration: 500 }] })).toEqual(v1Error("BAD_REQUEST", "duration"));
    expect(await unkey.identities.create({ externalId: "sdk_v1_taken" })).toEqual(v1Error("CONFLICT", "sdk_v1_taken"));
    expect(await unkey.identities.get({})).toEqual(v1Error("BAD_REQUEST", "Name the identity"));
    expect(await unkey.identities.update({ identityId: "id_1111111111111111111111", meta: {} })).toEqual(v1Error("NOT_FOUND", "does not exist"));
    expect(await sdk(reader).identities.delete({ identityId: "id_1111111111111111111111" })).toEqual(v1Error("INSUFFICIENT_PERMISSIONS", "identity.*.delete_identity"));
    expect(harness.writes.writes).toEqual([]);
  });
});
