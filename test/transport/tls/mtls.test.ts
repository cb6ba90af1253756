import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { credentials, status } from "@grpc/grpc-js";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateClients } from "../../../scripts/generate-clients.mjs";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { grpcJsClient } from "../../support/grpc-js-client.js";
import { curl, httpsPost } from "./clients.js";
import { useTlsKeyward } from "./use-tls-keyward.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));

describe("mTLS (KEYWARD_TLS_CLIENT_CA_FILE): a client certificate from the CA is required on every connection", () => {
  const harness = useTlsKeyward({ mtls: true });
  const withClientCert = () => ({ ca: harness.certs.ca, cert: harness.certs.client.cert, key: harness.certs.client.key });
  beforeAll(async () => {
    const seeded = await httpsPost(harness.keyward.baseUrl, "/v2/apis.createApi", { name: "seeded" }, { ...withClientCert(), rootKey: harness.keyward.rootKey });
    expect(seeded.status).toBe(200);
  });

  const curlArgs = (extra: string[], name: string) => [
    "--http2", "--cacert", harness.certs.caFile, ...extra, "-X", "POST", `${harness.keyward.baseUrl}/v2/apis.createApi`,
    "-H", "content-type: application/json", "-H", `authorization: Bearer ${harness.keyward.rootKey}`, "-d", JSON.stringify({ name }),
  ];

  it("curl without a client certificate, or with one of another CA, is refused before any HTTP; with the CA's it is answered", async () => {
    // The server's alert ends the connection before any HTTP answer: curl fails (35, 55, 56 or 18, depending on the
    // step it was at when the alert or the close arrived) with no HTTP status.
    const refused = await curl(curlArgs([], "refused"));
    expect([refused.code !== 0, refused.written]).toEqual([true, "0 000"]);
    const stranger = await curl(curlArgs(["--cert", harness.certs.stranger.certFile, "--key", harness.certs.stranger.keyFile], "refused"));
    expect([stranger.code !== 0, stranger.written]).toEqual([true, "0 000"]);
    const accepted = await curl(curlArgs(["--cert", harness.certs.client.certFile, "--key", harness.certs.client.keyFile], "accepted"));
    expect([accepted.code, accepted.written]).toEqual([0, "2 200"]);
    expect(JSON.parse(accepted.body).data.apiId).toMatch(/^api_\w+$/);
    // The refused attempts created nothing.
    const listed = await httpsPost(harness.keyward.baseUrl, "/v2/apis.listApis", {}, { ...withClientCert(), rootKey: harness.keyward.rootKey });
    expect([listed.status, listed.body.data.map((api: { name: string }) => api.name)]).toEqual([200, ["seeded", "accepted"]]);
  });

  it("node:https without a certificate fails; with one the root key still decides (401 without it)", async () => {
    const base = harness.keyward.baseUrl;
    await expect(httpsPost(base, "/v2/apis.listApis", {}, { ca: harness.certs.ca, rootKey: harness.keyward.rootKey }))
      .rejects.toThrow(/certificate required|socket hang up|ECONNRESET|EPIPE/);
    const noRootKey = await httpsPost(base, "/v2/apis.listApis", {}, withClientCert());
    expect([noRootKey.status, noRootKey.body.error.status]).toEqual([401, 401]);
  });

  it("@grpc/grpc-js: UNAVAILABLE without a client certificate, answered with createSsl(ca, key, cert)", async () => {
    const address = `127.0.0.1:${harness.keyward.port}`;
    const without = grpcJsClient(ApisService, address, {}, credentials.createSsl(harness.certs.ca));
    const refused = await without.call("listApis", {}, { rootKey: harness.keyward.rootKey, deadlineMs: 5_000 });
    without.close();
    expect(refused.ok ? "answered" : refused.error.code).toBe(status.UNAVAILABLE);
    const withCert = grpcJsClient(ApisService, address, {}, credentials.createSsl(harness.certs.ca, harness.certs.client.key, harness.certs.client.cert));
    const answered = await withCert.call("listApis", {}, { rootKey: harness.keyward.rootKey });
    withCert.close();
    if (!answered.ok) throw answered.error;
    expect(answered.message.data.map((api) => api.name)).toContain("seeded");
  });

  it("connect-node's Connect and gRPC transports present the client certificate and are answered", async () => {
    const { baseUrl } = harness.keyward;
    const nodeOptions = withClientCert();
    const auth = { headers: { authorization: `Bearer ${harness.keyward.rootKey}` } };
    for (const transport of [
      createConnectTransport({ baseUrl, httpVersion: "1.1", nodeOptions }),
      createConnectTransport({ baseUrl, httpVersion: "2", nodeOptions }),
      createGrpcTransport({ baseUrl, nodeOptions }),
    ]) {
      const listed = await createClient(ApisService, transport).listApis({}, auth);
      expect(listed.data.map((api) => api.name)).toContain("seeded");
    }
  });

  describe("Python grpcio", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "keyward-python-mtls-"));
      generateClients({ out: join(dir, "out"), languages: ["python"] });
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const python = async (clientCertificate: string[]) => {
      const { stdout } = await promisify(execFile)("/usr/bin/python3", [
        join(root, "test/transport/tls/python/tls_client.py"), `127.0.0.1:${harness.keyward.port}`, harness.keyward.rootKey, harness.certs.caFile,
        ...clientCertificate,
      ], { env: { ...process.env, PYTHONPATH: join(dir, "out/python") }, encoding: "utf8" });
      return JSON.parse(stdout);
    };

    it("ssl_channel_credentials without a client certificate: UNAVAILABLE; with the CA's key and chain: answered", async () => {
      expect(await python([])).toEqual({ error: "UNAVAILABLE" });
      expect(await python([harness.certs.client.certFile, harness.certs.client.keyFile])).toEqual({ createApi: "api_", health: "SERVING" });
    });
  });
});
