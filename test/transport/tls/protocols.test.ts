import { credentials, status } from "@grpc/grpc-js";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateClients } from "../../../scripts/generate-clients.mjs";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import { grpcJsClient } from "../../support/grpc-js-client.js";
import { recordRpcSecrets, recordSecret } from "../../support/secret-record.js";
import { curl, handshake, httpsPost } from "./clients.js";
import { useTlsKeyward } from "./use-tls-keyward.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));

describe("TLS: every protocol on one port, HTTP/2 or HTTP/1.1 chosen by ALPN", () => {
  const harness = useTlsKeyward();
  let apiId: string;
  beforeAll(async () => {
    const created = await httpsPost(harness.keyward.baseUrl, "/v2/apis.createApi", { name: "tls" }, { ca: harness.certs.ca, rootKey: harness.keyward.rootKey });
    expect(created.status).toBe(200);
    apiId = created.body.data.apiId;
  });

  it("offers h2 and http/1.1 by ALPN on the same port, HTTP/1.1 for a client that names neither", async () => {
    const { port } = harness.keyward;
    const ca = harness.certs.ca;
    expect(await handshake(port, { ca, alpn: ["h2", "http/1.1"] })).toEqual({ alpn: "h2", fingerprint256: harness.certs.server.fingerprint256 });
    expect((await handshake(port, { ca, alpn: ["http/1.1"] })).alpn).toBe("http/1.1");
    expect((await handshake(port, { ca })).alpn).toBe(false);
    // No ALPN at all: served as HTTP/1.1.
    const answer = await httpsPost(harness.keyward.baseUrl, "/v2/apis.getApi", { apiId }, { ca, rootKey: harness.keyward.rootKey });
    expect([answer.status, answer.body.data.name]).toEqual([200, "tls"]);
  });

  it("answers curl --cacert over HTTP/1.1 and --http2, and curl without the CA refuses the certificate", async () => {
    const base = harness.keyward.baseUrl;
    const args = (version: string) => [
      version, "--cacert", harness.certs.caFile, "-X", "POST", `${base}/v2/apis.getApi`,
      "-H", "content-type: application/json", "-H", `authorization: Bearer ${harness.keyward.rootKey}`, "-d", JSON.stringify({ apiId }),
    ];
    const http1 = await curl(args("--http1.1"));
    expect([http1.code, http1.written, JSON.parse(http1.body).data.id]).toEqual([0, "1.1 200", apiId]);
    const http2 = await curl(args("--http2"));
    expect([http2.code, http2.written, JSON.parse(http2.body).data.id]).toEqual([0, "2 200", apiId]);
    // The v1 dialect too, over h2.
    const v1 = await curl(["--http2", "--cacert", harness.certs.caFile, `${base}/v1/apis.getApi?apiId=${apiId}`,
      "-H", `authorization: Bearer ${harness.keyward.rootKey}`]);
    expect([v1.code, v1.written, JSON.parse(v1.body)]).toEqual([0, "2 200", { id: apiId, name: "tls", workspaceId: harness.keyward.workspaceId }]);
    // Without the test CA, curl's own trust store does not know the certificate: exit 60, nothing sent.
    const untrusted = await curl(["--http2", `${base}/v2/apis.getApi`]);
    expect(untrusted.code).toBe(60);
    // Cleartext HTTP to the TLS port gets no answer.
    const cleartext = await curl([`http://127.0.0.1:${harness.keyward.port}/v2/apis.getApi`]);
    expect(cleartext.code).not.toBe(0);
  });

  it("serves @grpc/grpc-js over TLS with credentials.createSsl(ca): create a key, verify it VALID, no root key UNAUTHENTICATED, an insecure channel no answer", async () => {
    const ssl = credentials.createSsl(harness.certs.ca);
    const keys = grpcJsClient(KeysService, `127.0.0.1:${harness.keyward.port}`, {}, ssl);
    try {
      const created = await keys.call("createKey", { apiId, credits: { remaining: 1n } }, { rootKey: harness.keyward.rootKey });
      if (!created.ok) throw created.error;
      recordSecret(created.message.key);
      const verified = await keys.call("verifyKey", { key: created.message.key }, { rootKey: harness.keyward.rootKey });
      if (!verified.ok) throw verified.error;
      expect([verified.message.valid, verified.message.code, verified.message.credits]).toEqual([true, "VALID", 0n]);
      const anonymous = await keys.call("verifyKey", { key: created.message.key });
      expect(anonymous.ok ? "ok" : anonymous.error.code).toBe(status.UNAUTHENTICATED);
      // An insecure channel to the TLS port never gets an answer.
      const cleartext = grpcJsClient(KeysService, `127.0.0.1:${harness.keyward.port}`);
      const refused = await cleartext.call("verifyKey", { key: created.message.key }, { rootKey: harness.keyward.rootKey, deadlineMs: 2_000 });
      cleartext.close();
      expect(refused.ok ? "ok" : refused.error.code).toBeOneOf([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);
    } finally {
      keys.close();
    }
  });

  it("serves Connect (HTTP/1.1 and HTTP/2), gRPC-Web and gRPC from connect-node's transports over TLS", async () => {
    const baseUrl = harness.keyward.baseUrl;
    const ca = harness.certs.ca;
    const interceptors = [recordRpcSecrets];
    const transports: Record<string, Transport> = {
      "connect http/1.1": createConnectTransport({ baseUrl, httpVersion: "1.1", nodeOptions: { ca }, interceptors }),
      "connect h2": createConnectTransport({ baseUrl, httpVersion: "2", nodeOptions: { ca }, interceptors }),
      "grpc-web http/1.1": createGrpcWebTransport({ baseUrl, httpVersion: "1.1", nodeOptions: { ca }, interceptors }),
      "grpc-web h2": createGrpcWebTransport({ baseUrl, httpVersion: "2", nodeOptions: { ca }, interceptors }),
      grpc: createGrpcTransport({ baseUrl, nodeOptions: { ca }, interceptors }),
    };
    const auth = { headers: { authorization: `Bearer ${harness.keyward.rootKey}` } };
    const seen: Record<string, unknown> = {};
    for (const [name, transport] of Object.entries(transports)) {
      const api = await createClient(ApisService, transport).getApi({ apiId }, auth);
      const missing = await createClient(ApisService, transport).getApi({ apiId: "api_nope" }, auth).catch((error) => ConnectError.from(error).code);
      seen[name] = [api.name, missing];
    }
    const expected = ["tls", Code.NotFound];
    expect(seen).toEqual(Object.fromEntries(Object.keys(transports).map((name) => [name, expected])));
  });

  describe("Python grpcio", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "keyward-python-tls-"));
      generateClients({ out: join(dir, "out"), languages: ["python"] });
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("calls over grpc.ssl_channel_credentials(the test CA): CreateApi and the health check answer", async () => {
      const { stdout } = await promisify(execFile)("/usr/bin/python3", [
        join(root, "test/transport/tls/python/tls_client.py"), `127.0.0.1:${harness.keyward.port}`, harness.keyward.rootKey, harness.certs.caFile,
      ], { env: { ...process.env, PYTHONPATH: join(dir, "out/python") }, encoding: "utf8" });
      expect(JSON.parse(stdout)).toEqual({ createApi: "api_", health: "SERVING" });
    });
  });
});
