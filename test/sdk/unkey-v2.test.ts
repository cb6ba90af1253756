import { Unkey } from "unkey-v2";
import {
  BadRequestErrorResponse,
  ForbiddenErrorResponse,
  NotFoundErrorResponse,
  PreconditionFailedErrorResponse,
  UnauthorizedErrorResponse,
  UnkeyError,
} from "unkey-v2/models/errors";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

const API_ID = /^api_[1-9A-HJ-NP-Za-km-z]{22}$/;

/** Runs `call`, which must throw; returns what it threw. */
async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

/** A typed v2 error carries the status, Keyward's problem body and the request id of the response. */
function expectTyped(error: unknown, status: number, title: string, detail: string) {
  expect(error).toBeInstanceOf(UnkeyError);
  const typed = error as UnkeyError & { meta: { requestId: string }; error: { title: string; detail: string; status: number; type: string } };
  expect(typed.statusCode).toBe(status);
  expect(typed.meta.requestId).toMatch(REQUEST_ID);
  expect(typed.headers.get("x-request-id")).toBe(typed.meta.requestId);
  expect(typed.error).toMatchObject({ title, status, detail: expect.stringContaining(detail) });
  expect(typed.error.type).toMatch(/^https:\/\/keyward\.dev\/docs\/errors\//);
}

describe("@unkey/api 2.5 (v2 SDK) against Keyward", () => {
  const harness = useKeyward();
  const sdk = (rootKey = harness.keyward.rootKey) =>
    new Unkey({ rootKey, serverURL: harness.keyward.baseUrl, retryConfig: { strategy: "none" } });

  it("apis.createApi, getApi, listKeys and deleteApi return the server's data", async () => {
    const unkey = sdk();
    const created = await unkey.apis.createApi({ name: "sdk-v2-api" });
    expect(created).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: { apiId: expect.stringMatching(API_ID) } });
    const { apiId } = created.data;
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toMatchObject({ name: "sdk-v2-api" });

    const read = await unkey.apis.getApi({ apiId });
    // The SDK's schema strips fields it does not know (Keyward also sends workspaceId).
    expect(read).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: { id: apiId, name: "sdk-v2-api" } });

    const deleted = await unkey.apis.deleteApi({ apiId });
    expect(deleted).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: {} });
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toBeUndefined();
  });

  it("listKeys yields one empty page and its iterator stops: no cursor, hasMore false", async () => {
    const unkey = sdk();
    const { data } = await unkey.apis.createApi({ name: "sdk-v2-list" });
    const page = await unkey.apis.listKeys({ apiId: data.apiId });
    expect(page.result).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: [], pagination: { hasMore: false } });
    expect(await page.next()).toBeNull();
    const pages = [];
    for await (const each of page) {
      pages.push(each.result.data);
      if (pages.length > 3) break;
    }
    expect(pages).toEqual([[]]);
  });

  it("throws NotFoundErrorResponse for a deleted api, from getApi, listKeys and deleteApi", async () => {
    const unkey = sdk();
    const { data } = await unkey.apis.createApi({ name: "sdk-v2-gone" });
    await unkey.apis.deleteApi({ apiId: data.apiId });
    for (const call of [
      () => unkey.apis.getApi({ apiId: data.apiId }),
      () => unkey.apis.listKeys({ apiId: data.apiId }),
      () => unkey.apis.deleteApi({ apiId: data.apiId }),
    ]) {
      const error = await thrown(call);
      expect(error).toBeInstanceOf(NotFoundErrorResponse);
      expectTyped(error, 404, "Not Found", `The api ${data.apiId} does not exist.`);
    }
  });

  it("throws ForbiddenErrorResponse to a root key without the permission, and changes nothing", async () => {
    const apiId = await harness.seed.api({ name: "sdk-v2-kept" });
    const { key } = await harness.seed.rootKey(["api.*.read_api"]);
    const restricted = sdk(key);
    expect((await restricted.apis.getApi({ apiId })).data.name).toBe("sdk-v2-kept");
    harness.writes.clear();
    for (const [call, missing] of [
      [() => restricted.apis.deleteApi({ apiId }), "api.*.delete_api"],
      [() => restricted.apis.createApi({ name: "not-allowed" }), "api.*.create_api"],
    ] as const) {
      const error = await thrown(call);
      expect(error).toBeInstanceOf(ForbiddenErrorResponse);
      expectTyped(error, 403, "Forbidden", `Missing permission: ${missing}`);
    }
    expect(harness.writes.writes).toEqual([]);
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toMatchObject({ id: apiId });
  });

  it("throws UnauthorizedErrorResponse for an unknown or revoked root key", async () => {
    const revoked = await harness.seed.deletedRootKey();
    for (const rootKey of ["kw_root_not_a_real_key", revoked]) {
      const error = await thrown(() => sdk(rootKey).apis.createApi({ name: "nope" }));
      expect(error).toBeInstanceOf(UnauthorizedErrorResponse);
      expectTyped(error, 401, "Unauthorized", "The root key is unknown or revoked");
    }
  });

  it("throws PreconditionFailedErrorResponse for a delete-protected api, which survives", async () => {
    const apiId = await harness.seed.api({ name: "sdk-v2-protected", deleteProtection: true });
    const error = await thrown(() => sdk().apis.deleteApi({ apiId }));
    expect(error).toBeInstanceOf(PreconditionFailedErrorResponse);
    expectTyped(error, 412, "Precondition Failed", `The api ${apiId} is protected from deletion.`);
    expect((await sdk().apis.getApi({ apiId })).data).toEqual({ id: apiId, name: "sdk-v2-protected" });
  });

  it("throws BadRequestErrorResponse naming body.name for a bad api name, creating nothing", async () => {
    harness.writes.clear();
    for (const name of ["ab", "x".repeat(257)]) {
      const error = await thrown(() => sdk().apis.createApi({ name }));
      expect(error).toBeInstanceOf(BadRequestErrorResponse);
      expectTyped(error, 400, "Bad Request", "name");
      expect((error as BadRequestErrorResponse).error.errors.map((e) => e.location)).toEqual(["body.name"]);
    }
    expect(harness.writes.writes).toEqual([]);
  });
});
