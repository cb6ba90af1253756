import { Unkey } from "unkey-v1";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

const API_ID = /^api_[1-9A-HJ-NP-Za-km-z]{22}$/;

/** The v1 error body as Unkey's v1 SDK hands it back: `{ error: { code, message, docs, requestId } }`. */
const v1Error = (code: string, message: string | RegExp = /./) => ({
  error: {
    code,
    message: typeof message === "string" ? expect.stringContaining(message) : expect.stringMatching(message),
    docs: `https://keyward.dev/docs/api-reference/errors/code/${code}`,
    requestId: expect.stringMatching(REQUEST_ID),
  },
});

describe("@unkey/api 0.38 (v1 SDK) against Keyward", () => {
  const harness = useKeyward();
  const sdk = (rootKey = harness.keyward.rootKey) =>
    new Unkey({ rootKey, baseUrl: harness.keyward.baseUrl, retry: { attempts: 0 }, disableTelemetry: true });

  it("apis.create, get, listKeys and delete return the values the server holds", async () => {
    const unkey = sdk();
    const created = await unkey.apis.create({ name: "sdk-v1-api" });
    expect(created).toEqual({ result: { apiId: expect.stringMatching(API_ID) } });
    const apiId = created.result!.apiId;
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toMatchObject({ name: "sdk-v1-api" });

    expect(await unkey.apis.get({ apiId })).toEqual({ result: { id: apiId, name: "sdk-v1-api", workspaceId: harness.keyward.workspaceId } });
    expect(await unkey.apis.listKeys({ apiId })).toEqual({ result: { keys: [], total: 0 } });
    expect(await unkey.apis.listKeys({ apiId, limit: 10, revalidateKeysCache: false })).toEqual({ result: { keys: [], total: 0 } });

    expect(await unkey.apis.delete({ apiId })).toEqual({ result: {} });
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toBeUndefined();
  });

  it("returns {error:{code:\"NOT_FOUND\"}} for a deleted or unknown api, from get, listKeys and delete", async () => {
    const unkey = sdk();
    const apiId = (await unkey.apis.create({ name: "sdk-v1-gone" })).result!.apiId;
    await unkey.apis.delete({ apiId });
    expect(await unkey.apis.get({ apiId })).toEqual(v1Error("NOT_FOUND", `The api ${apiId} does not exist.`));
    expect(await unkey.apis.listKeys({ apiId })).toEqual(v1Error("NOT_FOUND", apiId));
    expect(await unkey.apis.delete({ apiId })).toEqual(v1Error("NOT_FOUND", apiId));
    expect(await unkey.apis.get({ apiId: "api_1111111111111111111111" })).toEqual(v1Error("NOT_FOUND"));
  });

  it("returns {error:{code:\"INSUFFICIENT_PERMISSIONS\"}} to a root key without the permission, and changes nothing", async () => {
    const apiId = await harness.seed.api({ name: "sdk-v1-kept" });
    const { key } = await harness.seed.rootKey(["api.*.read_api"]);
    const restricted = sdk(key);
    expect(await restricted.apis.get({ apiId })).toEqual({
      result: { id: apiId, name: "sdk-v1-kept", workspaceId: harness.keyward.workspaceId },
    });
    harness.writes.clear();
    expect(await restricted.apis.create({ name: "not-allowed" })).toEqual(v1Error("INSUFFICIENT_PERMISSIONS", "api.*.create_api"));
    expect(await restricted.apis.delete({ apiId })).toEqual(v1Error("INSUFFICIENT_PERMISSIONS", "api.*.delete_api"));
    expect(await restricted.apis.listKeys({ apiId })).toEqual(v1Error("INSUFFICIENT_PERMISSIONS", "api.*.read_key"));
    expect(harness.writes.writes).toEqual([]);
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toMatchObject({ id: apiId });
  });

  it("returns UNAUTHORIZED for an unknown root key, BAD_REQUEST for a bad name, DELETE_PROTECTED for a protected api", async () => {
    expect(await sdk("kw_root_not_a_real_key").apis.create({ name: "nope" })).toEqual(v1Error("UNAUTHORIZED", "unknown or revoked"));
    expect(await sdk().apis.create({ name: "ab" })).toEqual(v1Error("BAD_REQUEST", "name"));
    const protectedApi = await harness.seed.api({ name: "sdk-v1-protected", deleteProtection: true });
    expect(await sdk().apis.delete({ apiId: protectedApi })).toEqual(v1Error("DELETE_PROTECTED", protectedApi));
    expect((await sdk().apis.get({ apiId: protectedApi })).result?.id).toBe(protectedApi);
  });
});
