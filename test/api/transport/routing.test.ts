import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID } from "../../support/vias.js";

describe("REST routing", () => {
  const harness = useKeyward();
  const send = (path: string, init: RequestInit = {}) => harness.rest.raw(path, init);

  it("answers an unknown /v2/ path with 404 and the v2 error body", async () => {
    for (const [method, path] of [["POST", "/v2/apis.nope"], ["GET", "/v2/"], ["POST", "/v2/keys.verifyKey/extra"]]) {
      const response = await send(path, { method, headers: { "content-type": "application/json" }, body: method === "POST" ? "{}" : undefined });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.body).toEqual({
        meta: { requestId: response.headers.get("x-request-id") },
        error: {
          title: "Not Found", detail: `No route ${method} ${path}.`, status: 404, type: "https://keyward.dev/docs/errors/not_found",
        },
      });
    }
  });

  it("answers an unknown /v1/ path with 404 and the v1 error body", async () => {
    for (const [method, path] of [["GET", "/v1/apis.nope"], ["POST", "/v1/nothing"]]) {
      const response = await send(path, { method });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        error: {
          code: "NOT_FOUND", message: `No route ${method} ${path}.`,
          docs: "https://keyward.dev/docs/api-reference/errors/code/NOT_FOUND", requestId: response.headers.get("x-request-id"),
        },
      });
    }
  });

  it("the Keyward extensions have no v1 binding: /v1/apis.listApis, /v1/apis.updateApi and /v1/ratelimits.listNamespaces are 404", async () => {
    for (const path of ["/v1/apis.listApis", "/v1/apis.updateApi", "/v1/ratelimits.listNamespaces", "/v1/ratelimit.listNamespaces"]) {
      for (const method of ["GET", "POST"]) {
        const response = await send(path, { method, headers: { authorization: `Bearer ${harness.keyward.rootKey}` } });
        expect({ path, method, status: response.status, code: response.body.error?.code }).toEqual({ path, method, status: 404, code: "NOT_FOUND" });
      }
    }
  });

  it("answers any other unknown path (including an unknown RPC) with 404 and the v2 error body", async () => {
    for (const path of ["/", "/favicon.ico", "/keyward.v1.ApisService/Nope", "/v3/apis.getApi"]) {
      const response = await send(path);
      expect(response.status).toBe(404);
      expect(response.body.meta.requestId).toMatch(REQUEST_ID);
      expect(response.body.meta.requestId).toBe(response.headers.get("x-request-id"));
      expect(response.body.error).toMatchObject({ title: "Not Found", status: 404, detail: `No route GET ${path}.` });
    }
  });

  it("answers a path that exists with another method with 405 and an `allow` header naming the right one", async () => {
    const cases: [string, string, string, "v1" | "v2"][] = [
      ["GET", "/v2/apis.createApi", "POST", "v2"],
      ["PUT", "/v2/rootKeys.listRootKeys", "POST", "v2"],
      ["GET", "/v2/apis.listApis", "POST", "v2"],
      ["GET", "/v2/ratelimit.listNamespaces", "POST", "v2"],
      ["POST", "/v2/liveness", "GET", "v2"],
      ["POST", "/v1/apis.getApi", "GET", "v1"],
      ["DELETE", "/v1/apis.deleteApi", "POST", "v1"],
      ["POST", "/v1/liveness", "GET", "v1"],
    ];
    for (const [method, path, allow, dialect] of cases) {
      const response = await send(path, { method, headers: { authorization: `Bearer ${harness.keyward.rootKey}` } });
      expect({ path, method, status: response.status, allow: response.headers.get("allow") }).toEqual({ path, method, status: 405, allow });
      const requestId = response.headers.get("x-request-id");
      const detail = `${method} is not allowed on ${path}; use ${allow}.`;
      expect(response.body).toEqual(
        dialect === "v2"
          ? {
            meta: { requestId },
            error: { title: "Method Not Allowed", detail, status: 405, type: "https://keyward.dev/docs/errors/method_not_allowed" },
          }
          : {
            error: {
              code: "METHOD_NOT_ALLOWED", message: detail,
              docs: "https://keyward.dev/docs/api-reference/errors/code/METHOD_NOT_ALLOWED", requestId,
            },
          },
      );
    }
  });

  it("a wrong method changes nothing, even with a valid body and root key", async () => {
    harness.writes.clear();
    const response = await send("/v2/apis.createApi", {
      method: "PUT",
      headers: { authorization: `Bearer ${harness.keyward.rootKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "not-created" }),
    });
    expect(response.status).toBe(405);
    expect(harness.writes.writes).toEqual([]);
  });

  it("ignores the query string when matching: /v2/liveness?x=1 is served", async () => {
    const response = await send("/v2/liveness?x=1");
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ message: "OK" });
  });
});
