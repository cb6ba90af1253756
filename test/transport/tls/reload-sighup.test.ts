import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, tempDataDir, type ServerProcess } from "../../cli/keyward-cli.js";
import { recordSecret } from "../../support/secret-record.js";
import { makeTestCertificates, type TestCertificates } from "./certificates.js";
import { handshake, httpsPost } from "./clients.js";
import { liveFiles, swapIn } from "./live-files.js";
import { eventually, startLoadLoop } from "./load-loop.js";

// The server as its own process (npm start's entry), configured by KEYWARD_TLS_* as an operator would.
describe("TLS reload on SIGHUP in a running server", () => {
  let certs: TestCertificates;
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  let server: ServerProcess | undefined;
  const rootKey = `kw_tls_${randomBytes(12).toString("hex")}`;
  let files: ReturnType<typeof liveFiles>;
  beforeAll(async () => {
    recordSecret(rootKey);
    certs = makeTestCertificates();
    dirs = await tempDataDir();
    files = liveFiles(join(certs.dir, "live"), certs.server);
    server = await startServerProcess({
      dataDir: dirs.dataDir,
      env: { KEYWARD_ROOT_KEY: rootKey, KEYWARD_TLS_CERT_FILE: files.certFile, KEYWARD_TLS_KEY_FILE: files.keyFile },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await dirs?.remove();
    certs?.remove();
  });

  it("announces https, and on SIGHUP serves the replaced certificate to new connections while open ones finish: 0 failed", async () => {
    expect(server!.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(server!.baseUrl).port);
    const created = await httpsPost(server!.baseUrl, "/v2/apis.createApi", { name: "sighup" }, { ca: certs.ca, rootKey });
    expect(created.status).toBe(200);
    const loop = startLoadLoop({ baseUrl: server!.baseUrl, ca: certs.ca, rootKey, apiId: created.body.data.apiId });
    await eventually(() => loop.answered() >= 100);
    expect((await handshake(port, { ca: certs.ca })).fingerprint256).toBe(certs.server.fingerprint256);
    swapIn(files, certs.renewed);
    process.kill(server!.pid, "SIGHUP");
    await eventually(async () => (await handshake(port, { ca: certs.ca })).fingerprint256 === certs.renewed.fingerprint256);
    loop.mark();
    const before = loop.answered();
    await eventually(() => loop.answered() >= before + 100);
    const result = await loop.stop();
    expect({ failed: result.failed, reasons: result.reasons }).toEqual({ failed: 0, reasons: [] });
    expect([...result.keepAliveCertsAfter]).toEqual([certs.server.fingerprint256]);
    // SIGHUP reloaded at once; the file watcher, a moment later, found nothing new.
    const reloads = server!.output().split("\n").filter((line) => line.includes("TLS certificates"));
    expect(reloads.map((line) => JSON.parse(line)).map((line) => [line.msg, line.trigger, line.fingerprint256])).toEqual([
      ["TLS certificates reloaded; new connections get the new certificate", "SIGHUP", certs.renewed.fingerprint256],
    ]);
    // And the process still stops cleanly.
    expect(await server!.stop()).toBe(0);
    server = undefined;
  });
});
