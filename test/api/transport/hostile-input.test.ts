import { create, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { CreateKeyRequestSchema, KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import { MAX_FREE_FORM_DEPTH } from "../../../src/domain/json-limits.js";
import { grpcFrame, grpcStatusOf, rawRequest } from "../../support/raw-grpc.js";
import { bearer, rpcClient, rpcTransports } from "../../support/rpc.js";
import { useKeyward } from "../../support/use-keyward.js";

/** JSON text of `{"a":{"a":...{"x":1}}}` nested `levels` deep. */
const nestedText = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"x":1}${"}".repeat(levels - 1)}`;

/**
 * Input the fuzzing found answered with 500 or applied: lone surrogates, deep or infinite free-form JSON,
 * set* calls without their list, bodies that are not JSON, and proto JSON integers protobuf-es read too kindly. Each
 * is refused with the field named, and nothing is written.
 */
describe("hostile input", () => {
  const harness = useKeyward();
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    harness.rest.raw(path, {
      method: "POST",
      headers: { authorization: `Bearer ${harness.keyward.rootKey}`, "content-type": "application/json", ...headers },
      body,
    });

  it("answers a lone surrogate with 400 naming the field on v1 verifyKey (no root key), v2 and Connect, writing nothing", async () => {
    harness.writes.clear();
    const v1 = await harness.rest.raw("/v1/keys.verifyKey", {
      method: "POST", headers: { "content-type": "application/json" }, body: '{"key":"\\ud800"}',
    });
    expect(v1.status).toBe(400);
    expect(v1.body.error).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("key: must be valid Unicode") });
    const v2 = await post("/v2/apis.createApi", '{"name":"ab\\udc00cd"}');
    expect(v2.status).toBe(400);
    expect(v2.body.error.errors).toEqual([{ location: "body.name", message: expect.stringContaining("valid Unicode") }]);
    const meta = await post("/v2/keys.createKey", `{"apiId":"${await harness.seed.api()}","meta":{"\\ud800":1}}`);
    expect(meta.body.error.errors).toEqual([{ location: "body.meta", message: expect.stringContaining("has a key that is not valid Unicode") }]);
    const connect = await post("/keyward.v1.ApisService/CreateApi", '{"name":"ab\\udc00cd"}');
    expect(connect.status).toBe(400);
    expect(connect.body).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("name: must be valid Unicode") });
    expect(harness.writes.writes.filter((w) => w.call !== "apis.insert")).toEqual([]);
    expect(harness.writes.writes).toHaveLength(1); // the api seeded above, nothing else
  });

  it(`takes metadata nested ${MAX_FREE_FORM_DEPTH} levels, refuses ${MAX_FREE_FORM_DEPTH + 1} or 99 with 400 on every write that takes meta`, async () => {
    const apiId = await harness.seed.api();
    const { keyId } = await harness.seed.key(apiId);
    expect((await post("/v2/keys.createKey", `{"apiId":"${apiId}","meta":${nestedText(MAX_FREE_FORM_DEPTH)}}`)).status).toBe(200);
    harness.writes.clear();
    for (const levels of [MAX_FREE_FORM_DEPTH + 1, 99, 5000]) {
      const meta = nestedText(levels);
      const calls: Array<[string, string]> = [
        ["/v2/keys.createKey", `{"apiId":"${apiId}","meta":${meta}}`],
        ["/v1/keys.createKey", `{"apiId":"${apiId}","meta":${meta}}`],
        ["/v2/keys.updateKey", `{"keyId":"${keyId}","meta":${meta}}`],
        ["/v1/keys.updateKey", `{"keyId":"${keyId}","meta":${meta}}`],
        ["/v2/identities.createIdentity", `{"externalId":"deep-${levels}","meta":${meta}}`],
        ["/v1/identities.createIdentity", `{"externalId":"deep-${levels}","meta":${meta}}`],
        ["/v2/identities.updateIdentity", `{"identity":"nobody-yet","meta":${meta}}`],
        ["/v1/identities.updateIdentity", `{"externalId":"nobody-yet","meta":${meta}}`],
      ];
      for (const [path, body] of calls) {
        const answer = await post(path, body);
        expect(answer.status, `${path} at ${levels} levels`).toBe(400);
        const detail = path.startsWith("/v2/") ? answer.body.error.detail : answer.body.error.message;
        expect(detail).toContain(`nests deeper than ${MAX_FREE_FORM_DEPTH} levels`);
      }
    }
    expect(harness.writes.writes).toEqual([]);
  });

  it("answers a non-finite or overlong number in free-form JSON with 400, also on v1 verifyKey without a root key", async () => {
    const v1 = await harness.rest.raw("/v1/keys.verifyKey", {
      method: "POST", headers: { "content-type": "application/json" }, body: '{"key":"abc","authorization":{"permissions":1e309}}',
    });
    expect(v1.status).toBe(400);
    expect(v1.body.error.message).toContain("authorization.permissions: must be a finite number");
    const apiId = await harness.seed.api();
    harness.writes.clear();
    const v2 = await post("/v2/keys.createKey", `{"apiId":"${apiId}","meta":{"n":[1,-1e309]}}`);
    expect(v2.body.error.errors).toEqual([{ location: "body.meta.n[1]", message: "must be a finite number" }]);
    expect(harness.writes.writes).toEqual([]);
  });

  it("refuses free-form JSON nested too deep over binary gRPC too (the pipeline's check), with INVALID_ARGUMENT", async () => {
    const apiId = await harness.seed.api();
    harness.writes.clear();
    let meta: JsonObject = { x: 1 };
    for (let i = 1; i <= MAX_FREE_FORM_DEPTH; i++) meta = { a: meta };
    const request = toBinary(CreateKeyRequestSchema, create(CreateKeyRequestSchema, { apiId, meta }));
    const answer = await rawRequest(harness.keyward.baseUrl, "/keyward.v1.KeysService/CreateKey", {
      headers: { "content-type": "application/grpc", authorization: `Bearer ${harness.keyward.rootKey}` }, body: grpcFrame(request),
    });
    expect(grpcStatusOf(answer)).toEqual({ status: Code.InvalidArgument, message: expect.stringContaining(`nests deeper than ${MAX_FREE_FORM_DEPTH} levels`) });
    expect(harness.writes.writes).toEqual([]);
  });

  it("refuses v1 and v2 setPermissions / setRoles without their list (400), keeping the key's assignments; v2 [] clears", async () => {
    const apiId = await harness.seed.api();
    const { keyId } = await harness.seed.key(apiId, { permissions: ["docs.read"], roles: ["reader"] });
    harness.writes.clear();
    for (const path of ["/v1/keys.setPermissions", "/v1/keys.setRoles", "/v2/keys.setPermissions", "/v2/keys.setRoles"]) {
      const answer = await post(path, JSON.stringify({ keyId }));
      expect(answer.status, path).toBe(400);
      const field = path.endsWith("Roles") ? "roles" : "permissions";
      if (path.startsWith("/v2/")) expect(answer.body.error.errors).toEqual([{ location: `body.${field}`, message: "is required" }]);
      else expect(answer.body.error.message).toBe(`${field} is required.`);
    }
    expect(harness.writes.writes).toEqual([]);
    const key = (await post("/v2/keys.getKey", JSON.stringify({ keyId }))).body.data;
    expect({ permissions: key.permissions, roles: key.roles }).toEqual({ permissions: ["docs.read"], roles: ["reader"] });
    expect((await post("/v2/keys.setRoles", JSON.stringify({ keyId, roles: [] }))).status).toBe(200);
    expect((await post("/v2/keys.getKey", JSON.stringify({ keyId }))).body.data.roles).toEqual([]);
  });

  it("answers 415 to bodies that are not JSON (text, form, multipart, gzip) and writes nothing", async () => {
    harness.writes.clear();
    const body = '{"name":"not-json-typed"}';
    for (const headers of <Array<Record<string, string>>>[
      { "content-type": "text/plain" },
      { "content-type": "application/x-www-form-urlencoded" },
      { "content-type": "multipart/form-data; boundary=x" },
      { "content-type": "application/json", "content-encoding": "gzip" },
    ]) {
      for (const path of ["/v2/apis.createApi", "/v1/apis.createApi"]) {
        const answer = await post(path, body, headers);
        expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(415);
        if (path.startsWith("/v2/")) {
          expect(answer.body.error).toMatchObject({ status: 415, title: "Unsupported Media Type", detail: expect.stringMatching(/not supported/) });
        } else {
          expect(answer.body.error).toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/not supported/) });
        }
      }
    }
    expect(harness.writes.writes).toEqual([]);
    // JSON with a charset, a +json type, or no content type at all is read.
    expect((await post("/v2/apis.createApi", '{"name":"charset"}', { "content-type": "application/json; charset=utf-8" })).status).toBe(200);
    expect((await post("/v2/apis.createApi", '{"name":"vendor"}', { "content-type": "application/vnd.api+json" })).status).toBe(200);
  });

  it("refuses null for a REST field that is not nullable; an update's null still clears", async () => {
    const apiId = await harness.seed.api();
    harness.writes.clear();
    const created = await post("/v2/keys.createKey", JSON.stringify({ apiId, name: null }));
    expect(created.body.error.errors).toEqual([{ location: "body.name", message: "must not be null; leave the field out instead" }]);
    expect(harness.writes.writes).toEqual([]);
    const { keyId } = await harness.seed.key(apiId, { name: "named" });
    expect((await post("/v2/keys.updateKey", JSON.stringify({ keyId, name: null }))).status).toBe(200);
    expect((await post("/v2/keys.getKey", JSON.stringify({ keyId }))).body.data.name).toBeUndefined();
  });

  it("refuses proto JSON integers that are not decimal (' ', '0x1F', '1e2') over Connect, naming the field", async () => {
    const apiId = await harness.seed.api();
    harness.writes.clear();
    const client = rpcClient(KeysService, rpcTransports(harness.keyward.baseUrl).connect);
    for (const remaining of [" ", "0x1F", "0b11", " 12", "1e2"]) {
      const answer = await post("/keyward.v1.KeysService/CreateKey", JSON.stringify({ apiId, credits: { remaining } }));
      expect(answer.status, remaining).toBe(400);
      expect(answer.body.message).toContain("credits.remaining: must be an integer");
    }
    expect(harness.writes.writes).toEqual([]);
    // A decimal string is proto JSON's own form for 64-bit integers.
    const created = await post("/keyward.v1.KeysService/CreateKey", JSON.stringify({ apiId, credits: { remaining: "31" } }));
    expect(created.status).toBe(200);
    const key = await client.getKey({ keyId: created.body.keyId }, bearer(harness.keyward.rootKey));
    expect(key.key?.credits?.remaining).toBe(31n);
  });
});
