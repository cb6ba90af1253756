import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { Unkey } from "unkey-v2";
import { HTTPClient } from "unkey-v2/lib/http";
import { beforeAll, describe, expect, it } from "vitest";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import { recordSecret } from "../../support/secret-record.js";
import { httpsFetch, httpsPost } from "./clients.js";
import { useTlsKeyward } from "./use-tls-keyward.js";

// What the API does is the same over TLS as in clear; these cases show the parts that look at the connection
// (client address, cookie) or come from outside (the SDK's own HTTP client), and the refusals.
describe("the API over TLS", () => {
  const harness = useTlsKeyward();
  let apiId: string;
  beforeAll(async () => {
    const created = await httpsPost(harness.keyward.baseUrl, "/v2/apis.createApi", { name: "tls" }, { ca: harness.certs.ca, rootKey: harness.keyward.rootKey });
    expect(created.status).toBe(200);
    apiId = created.body.data.apiId;
  });

  it("refuses over TLS as in clear: 403 naming the permission, 400 naming the field, another workspace's api 404", async () => {
    const base = harness.keyward.baseUrl;
    const ca = harness.certs.ca;
    const rootKey = harness.keyward.rootKey;
    const reader = (await httpsPost(base, "/v2/rootKeys.createRootKey", { permissions: ["api.*.create_api"] }, { ca, rootKey })).body.data.key;
    const other = (await httpsPost(base, "/v2/workspaces.createWorkspace", { name: "elsewhere" }, { ca, rootKey })).body.data.rootKey.key;
    const detail = "Missing permission: api.*.read_api";
    const forbidden = await httpsPost(base, "/v2/apis.getApi", { apiId }, { ca, rootKey: reader });
    expect([forbidden.status, forbidden.body.error.detail]).toEqual([403, detail]);
    const invalid = await httpsPost(base, "/v2/apis.createApi", { name: "ab" }, { ca, rootKey });
    expect([invalid.status, invalid.body.error.errors.map((e: { location: string }) => e.location)]).toEqual([400, ["body.name"]]);
    const foreign = await httpsPost(base, "/v2/apis.getApi", { apiId }, { ca, rootKey: other });
    expect(foreign.status).toBe(404);
    const grpc = createClient(ApisService, createGrpcTransport({ baseUrl: base, nodeOptions: { ca } }));
    const asCode = (call: Promise<unknown>) => call.then(() => "OK", (error) => [ConnectError.from(error).code, ConnectError.from(error).rawMessage]);
    expect(await asCode(grpc.getApi({ apiId }, { headers: { authorization: `Bearer ${reader}` } }))).toEqual([Code.PermissionDenied, detail]);
    expect((await asCode(grpc.createApi({ name: "ab" }, { headers: { authorization: `Bearer ${rootKey}` } })) as unknown[])[0]).toBe(Code.InvalidArgument);
    expect((await asCode(grpc.getApi({ apiId }, { headers: { authorization: `Bearer ${other}` } })) as unknown[])[0]).toBe(Code.NotFound);
  });

  it("serves the v2 SDK (@unkey/api 2.5) over HTTPS: createKey, then verifyKey VALID with its credits", async () => {
    const unkey = new Unkey({
      rootKey: harness.keyward.rootKey,
      serverURL: harness.keyward.baseUrl,
      retryConfig: { strategy: "none" },
      httpClient: new HTTPClient({ fetcher: httpsFetch(harness.certs.ca) }),
    });
    const created = (await unkey.keys.createKey({ apiId, credits: { remaining: 2 } })).data;
    recordSecret(created.key);
    const verified = (await unkey.keys.verifyKey({ key: created.key })).data;
    expect([verified.valid, verified.code, verified.credits, verified.keyId]).toEqual([true, "VALID", 1, created.keyId]);
  });

  it("checks an api's IP allow-list against the TLS client's real address, over HTTP/1.1 and HTTP/2", async () => {
    const base = harness.keyward.baseUrl;
    const rootKey = harness.keyward.rootKey;
    const ca = harness.certs.ca;
    const guarded = (await httpsPost(base, "/v2/apis.createApi", { name: "guarded" }, { ca, rootKey })).body.data.apiId;
    const key = (await httpsPost(base, "/v2/keys.createKey", { apiId: guarded }, { ca, rootKey })).body.data.key;
    const codes = async () => {
      const http1 = await httpsPost(base, "/v2/keys.verifyKey", { key }, { ca, rootKey });
      const http2 = await createClient(KeysService, createConnectTransport({ baseUrl: base, httpVersion: "2", nodeOptions: { ca } }))
        .verifyKey({ key }, { headers: { authorization: `Bearer ${rootKey}` } });
      return [http1.body.data.code, http2.code];
    };
    expect((await httpsPost(base, "/v2/apis.updateApi", { apiId: guarded, ipWhitelist: ["10.1.2.3"] }, { ca, rootKey })).status).toBe(200);
    expect(await codes()).toEqual(["FORBIDDEN", "FORBIDDEN"]);
    expect((await httpsPost(base, "/v2/apis.updateApi", { apiId: guarded, ipWhitelist: ["127.0.0.1"] }, { ca, rootKey })).status).toBe(200);
    expect(await codes()).toEqual(["VALID", "VALID"]);
  });

  it("marks the dashboard's session cookie Secure when served over TLS, and its removal on sign-out too", async () => {
    const base = harness.keyward.baseUrl;
    const signIn = await httpsPost(base, "/dashboard/api/sign-in", { rootKey: harness.keyward.rootKey }, {
      ca: harness.certs.ca, headers: { "x-keyward-csrf": "sign-in", origin: base },
    });
    expect(signIn.status).toBe(200);
    expect(signIn.setCookie).toEqual([expect.stringMatching(/^kw_dashboard_session=[\w-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict; Max-Age=3600; Secure$/)]);
    const token = /kw_dashboard_session=([^;]*)/.exec(signIn.setCookie[0])![1];
    const signOut = await httpsPost(base, "/dashboard/api/sign-out", {}, {
      ca: harness.certs.ca, headers: { "x-keyward-csrf": signIn.body.csrfToken, origin: base, cookie: `kw_dashboard_session=${token}` },
    });
    expect([signOut.status, signOut.setCookie]).toEqual([200, ["kw_dashboard_session=; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=0; Secure"]]);
  });
});
