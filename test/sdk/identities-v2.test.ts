import { Unkey } from "unkey-v2";
import { APIError, BadRequestErrorResponse, ConflictErrorResponse, ForbiddenErrorResponse, NotFoundErrorResponse, UnkeyError } from "unkey-v2/models/errors";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

const meta = { requestId: expect.stringMatching(REQUEST_ID) };
const IDENTITY_ID = expect.stringMatching(/^id_[1-9A-HJ-NP-Za-km-z]+$/);
const RL_ID = expect.stringMatching(/^rl_/);

async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

function expectTyped(error: unknown, type: new (...args: never[]) => UnkeyError, status: number, detail: string) {
  expect(error).toBeInstanceOf(type);
  expect((error as UnkeyError).statusCode).toBe(status);
  expect((error as UnkeyError & { error: { detail: string } }).error.detail).toContain(detail);
}

describe("@unkey/api 2.5 (v2 SDK) identities against Keyward", () => {
  const harness = useKeyward();
  const sdk = (rootKey = harness.keyward.rootKey) =>
    new Unkey({ rootKey, serverURL: harness.keyward.baseUrl, retryConfig: { strategy: "none" } });

  it("createIdentity, getIdentity, updateIdentity, verifyKey with the shared limit and deleteIdentity parse the server's values", async () => {
    const unkey = sdk();
    const created = await unkey.identities.createIdentity({
      externalId: "sdk_v2_user", meta: { plan: "pro" }, ratelimits: [{ name: "requests", limit: 10, duration: 60_000, autoApply: true }],
    });
    expect(created).toEqual({ meta, data: { identityId: IDENTITY_ID } });
    const { identityId } = created.data;
    const identity = {
      id: identityId, externalId: "sdk_v2_user", meta: { plan: "pro" },
      ratelimits: [{ id: RL_ID, name: "requests", limit: 10, duration: 60_000, autoApply: true }],
    };
    expect(await unkey.identities.getIdentity({ identity: identityId })).toEqual({ meta, data: identity });
    expect(await unkey.identities.getIdentity({ identity: "sdk_v2_user" })).toEqual({ meta, data: identity });

    const updated = await unkey.identities.updateIdentity({ identity: "sdk_v2_user", meta: { plan: "team" } });
    expect(updated).toEqual({ meta, data: { ...identity, meta: { plan: "team" } } });

    // Two keys of the identity share its limit.
    const { apiId } = (await unkey.apis.createApi({ name: "sdk-v2-identities" })).data;
    const a = (await unkey.keys.createKey({ apiId, externalId: "sdk_v2_user" })).data;
    const b = (await unkey.keys.createKey({ apiId, externalId: "sdk_v2_user" })).data;
    const codes: string[] = [];
    for (let i = 0; i < 12; i++) codes.push((await unkey.keys.verifyKey({ key: i % 2 ? a.key : b.key })).data.code);
    expect(codes).toEqual([...Array(10).fill("VALID"), "RATE_LIMITED", "RATE_LIMITED"]);
    expect((await unkey.keys.getKey({ keyId: a.keyId })).data.identity).toEqual({ ...identity, meta: { plan: "team" } });

    expect(await unkey.identities.deleteIdentity({ identity: identityId })).toEqual({ meta });
    expectTyped(await thrown(() => unkey.identities.getIdentity({ identity: identityId })), NotFoundErrorResponse, 404, identityId);
    const after = (await unkey.keys.verifyKey({ key: a.key })).data;
    expect({ valid: after.valid, identity: after.identity }).toEqual({ valid: true, identity: undefined });
  });

  it("listIdentities pages 250 identities by 100 with its iterator, each exactly once and in order", async () => {
    const unkey = sdk((await harness.seed.workspace("sdk-v2-list")).rootKey.key);
    const expected: string[] = [];
    for (let i = 0; i < 250; i++) {
      harness.clock.advance(1);
      expected.push((await unkey.identities.createIdentity({ externalId: `v2_${i}` })).data.identityId);
    }
    const first = await unkey.identities.listIdentities({ limit: 100 });
    expect(first.result.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
    const pages: string[][] = [];
    for await (const page of first) {
      pages.push(page.result.data.map((i) => i.id));
      if (pages.length > 5) break;
    }
    expect(pages.map((p) => p.length)).toEqual([100, 100, 50]);
    expect(pages.flat()).toEqual(expected);
    // search: v2_24 and v2_240 to v2_249.
    const searched = await unkey.identities.listIdentities({ search: "V2_24" });
    expect(searched.result.data.map((i) => i.externalId)).toEqual(["v2_24", ...Array.from({ length: 10 }, (_, i) => `v2_24${i}`)]);
  });

  it("throws the typed errors: 400 naming the field, 409 for a taken externalId, 403 naming the permission; nothing written", async () => {
    const unkey = sdk();
    await unkey.identities.createIdentity({ externalId: "sdk_v2_taken" });
    const { key: reader } = await harness.seed.rootKey(["identity.*.read_identity"]);
    harness.writes.clear();
    const bad = await thrown(() => unkey.identities.createIdentity({ externalId: "x", ratelimits: [{ name: "rps", limit: 1, duration: 999 }] }));
    expectTyped(bad, BadRequestErrorResponse, 400, "duration");
    expect((bad as BadRequestErrorResponse).error.errors).toEqual([{ location: "body.ratelimits[0].duration", message: expect.any(String) }]);
    const dup = await thrown(() => unkey.identities.updateIdentity({
      identity: "sdk_v2_taken", ratelimits: [{ name: "rps", limit: 1, duration: 1000 }, { name: "rps", limit: 2, duration: 1000 }],
    }));
    expectTyped(dup, BadRequestErrorResponse, 400, 'Two rate limits are named "rps"');
    expectTyped(await thrown(() => unkey.identities.createIdentity({ externalId: "sdk_v2_taken" })), ConflictErrorResponse, 409, "sdk_v2_taken");
    expectTyped(await thrown(() => sdk(reader).identities.updateIdentity({ identity: "sdk_v2_taken", meta: {} })), ForbiddenErrorResponse, 403,
      "Missing permission: identity.*.update_identity");
    // The SDK's deleteIdentity alone expects errors as application/problem+json; Keyward answers every error as
    // application/json (as the SDK's other operations expect), so this one surfaces as a plain APIError with the body.
    const denied = await thrown(() => sdk(reader).identities.deleteIdentity({ identity: "sdk_v2_taken" }));
    expect(denied).toBeInstanceOf(APIError);
    expect((denied as APIError).statusCode).toBe(403);
    expect(JSON.parse((denied as APIError).body).error.detail).toBe("Missing permission: identity.*.delete_identity");
    expect(harness.writes.writes).toEqual([]);
  });
});
