import { copyFileSync, rmSync } from "node:fs";
import { Agent } from "node:https";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateReloader, readTlsContext, type ReloadLogger, type TlsFiles } from "../../../src/transport/tls-certificates.js";
import { startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { makeTestCertificates, type TestCertificates } from "./certificates.js";
import { handshake, httpsPost } from "./clients.js";
import { liveFiles, swapIn } from "./live-files.js";
import { eventually, startLoadLoop } from "./load-loop.js";

function captureLog() {
  const lines: { level: "info" | "warn"; fields: Record<string, unknown>; message: string }[] = [];
  const logger: ReloadLogger = {
    info: (fields, message) => lines.push({ level: "info", fields: fields as Record<string, unknown>, message }),
    warn: (fields, message) => lines.push({ level: "warn", fields: fields as Record<string, unknown>, message }),
  };
  return { lines, logger };
}

describe("TLS certificate reload: new connections get the new certificate, open ones carry on", () => {
  let certs: TestCertificates;
  let files: TlsFiles;
  let keyward: RunningKeyward;
  let apiId: string;
  beforeAll(async () => {
    certs = makeTestCertificates();
    files = liveFiles(join(certs.dir, "live"), certs.server);
    keyward = await startKeyward({ tls: { context: readTlsContext(files), requireClientCertificate: false } });
    const created = await httpsPost(keyward.baseUrl, "/v2/apis.createApi", { name: "reload" }, { ca: certs.ca, rootKey: keyward.rootKey });
    apiId = created.body.data.apiId;
  });
  afterAll(async () => {
    await keyward?.stop();
    certs?.remove();
  });
  const served = async () => (await handshake(keyward.port, { ca: certs.ca, alpn: ["h2"] })).fingerprint256;

  it("swaps the certificate when its files change, under load on open HTTP/1.1, HTTP/2 and gRPC connections, with 0 failed requests", async () => {
    const log = captureLog();
    const reloader = createCertificateReloader({ files, apply: (context) => keyward.server.setSecureContext(context), logger: log.logger, debounceMs: 100 });
    const loop = startLoadLoop({ baseUrl: keyward.baseUrl, ca: certs.ca, rootKey: keyward.rootKey, apiId });
    try {
      await eventually(() => loop.answered() >= 100);
      expect(await served()).toBe(certs.server.fingerprint256);
      swapIn(files, certs.renewed);
      await eventually(async () => (await served()) === certs.renewed.fingerprint256);
      loop.mark();
      const before = loop.answered();
      await eventually(() => loop.answered() >= before + 100);
    } finally {
      reloader.close();
    }
    const result = await loop.stop();
    expect({ failed: result.failed, reasons: result.reasons }).toEqual({ failed: 0, reasons: [] });
    expect(result.ok).toBeGreaterThanOrEqual(200);
    // The keep-alive connections opened before the swap still answer after it, with the certificate they began with.
    expect([...result.keepAliveCertsBefore]).toEqual([certs.server.fingerprint256]);
    expect([...result.keepAliveCertsAfter]).toEqual([certs.server.fingerprint256]);
    expect(log.lines).toEqual([{
      level: "info",
      fields: expect.objectContaining({ trigger: "file change", fingerprint256: certs.renewed.fingerprint256, subject: "CN=localhost" }),
      message: "TLS certificates reloaded; new connections get the new certificate",
    }]);
  });

  it("keeps the served certificate when the new files are mismatched or unreadable, says why, and takes them once they work", async () => {
    const log = captureLog();
    const reloader = createCertificateReloader({ files, apply: (context) => keyward.server.setSecureContext(context), logger: log.logger, watch: false });
    const current = await served();
    const other = current === certs.server.fingerprint256 ? certs.renewed : certs.server;
    try {
      // Nothing changed: nothing to do, nothing logged.
      expect(reloader.reload("SIGHUP")).toBe(false);
      // Half a swap: the new certificate beside the old key.
      copyFileSync(other.certFile, files.certFile);
      expect(reloader.reload("SIGHUP")).toBe(false);
      expect(await served()).toBe(current);
      // The key gone.
      rmSync(files.keyFile);
      expect(reloader.reload("SIGHUP")).toBe(false);
      expect(await served()).toBe(current);
      copyFileSync(other.keyFile, files.keyFile);
      expect(reloader.reload("SIGHUP")).toBe(true);
      expect(await served()).toBe(other.fingerprint256);
    } finally {
      reloader.close();
    }
    expect(log.lines.map((line) => [line.level, line.fields.trigger, line.fields.reason ?? line.fields.fingerprint256])).toEqual([
      ["warn", "SIGHUP", expect.stringMatching(/^KEYWARD_TLS_CERT_FILE and KEYWARD_TLS_KEY_FILE cannot be used together: .*key values mismatch/)],
      ["warn", "SIGHUP", `KEYWARD_TLS_KEY_FILE: cannot read ${files.keyFile} (no such file)`],
      ["info", "SIGHUP", other.fingerprint256],
    ]);
    expect(log.lines[0].message).toBe("TLS certificates not reloaded; the previous certificate is still served");
    // No key material in any line.
    const text = JSON.stringify(log.lines);
    expect(text).not.toContain("PRIVATE KEY");
  });

  it("reloads the client CA too: after a swap to another CA, its client certificates get in and the old CA's do not", async () => {
    const caFile = join(certs.dir, "live", "clients-ca.pem");
    copyFileSync(certs.caFile, caFile);
    const mtlsFiles = { ...files, clientCaFile: caFile };
    const served = readTlsContext(mtlsFiles);
    const mtls = await startKeyward({ tls: { context: served, requireClientCertificate: true } });
    const log = captureLog();
    const reloader = createCertificateReloader({
      files: mtlsFiles, served, apply: (context) => mtls.server.setSecureContext(context), logger: log.logger, watch: false,
    });
    // No keep-alive (an open connection keeps what it was admitted with), but TLS sessions cached for resumption, as
    // node:https does by default: a session from before the swap must not let the old CA's client back in.
    const agents = new Map([certs.client, certs.stranger].map((pair) => [pair, new Agent({ keepAlive: false, cert: pair.cert, key: pair.key, ca: certs.ca })]));
    const list = (pair: { cert: Buffer; key: Buffer }) => httpsPost(mtls.baseUrl, "/v2/apis.listApis", {}, {
      ca: certs.ca, cert: pair.cert, key: pair.key, rootKey: mtls.rootKey, agent: agents.get(pair as never),
    }).then((answer) => answer.status, (error: Error) => error.message);
    try {
      expect(await list(certs.client)).toBe(200);
      expect(await list(certs.client)).toBe(200);
      expect(await list(certs.stranger)).not.toBe(200);
      copyFileSync(join(certs.dir, "other-ca.pem"), caFile);
      expect(reloader.reload("SIGHUP")).toBe(true);
      expect(await list(certs.stranger)).toBe(200);
      expect(await list(certs.client)).not.toBe(200);
    } finally {
      reloader.close();
      await mtls.stop();
    }
    expect(log.lines.map((line) => [line.level, line.fields.trigger])).toEqual([["info", "SIGHUP"]]);
  });
});
