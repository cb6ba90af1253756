import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "../../../src/config.js";
import { readTlsContext } from "../../../src/transport/tls-certificates.js";
import { startServerProcess, tempDataDir } from "../../cli/keyward-cli.js";
import { makeTestCertificates, type TestCertificates } from "./certificates.js";

describe("TLS configuration (KEYWARD_TLS_CERT_FILE, KEYWARD_TLS_KEY_FILE, KEYWARD_TLS_CLIENT_CA_FILE)", () => {
  let certs: TestCertificates;
  beforeAll(() => {
    certs = makeTestCertificates();
  });
  afterAll(() => certs?.remove());

  it("is off when unset, and reads the three files when set", () => {
    expect(readConfig({}).tls).toBeUndefined();
    expect(readConfig({ KEYWARD_TLS_CERT_FILE: certs.server.certFile, KEYWARD_TLS_KEY_FILE: certs.server.keyFile }).tls)
      .toEqual({ certFile: certs.server.certFile, keyFile: certs.server.keyFile, clientCaFile: undefined });
    expect(readConfig({ KEYWARD_TLS_CERT_FILE: certs.server.certFile, KEYWARD_TLS_KEY_FILE: certs.server.keyFile, KEYWARD_TLS_CLIENT_CA_FILE: certs.caFile }).tls)
      .toEqual({ certFile: certs.server.certFile, keyFile: certs.server.keyFile, clientCaFile: certs.caFile });
  });

  it("stops the start naming the variable when one of the pair is missing, or a client CA comes without them", () => {
    expect(() => readConfig({ KEYWARD_TLS_CERT_FILE: certs.server.certFile }))
      .toThrow("KEYWARD_TLS_CERT_FILE is set but KEYWARD_TLS_KEY_FILE is not: TLS needs both");
    expect(() => readConfig({ KEYWARD_TLS_KEY_FILE: certs.server.keyFile }))
      .toThrow("KEYWARD_TLS_KEY_FILE is set but KEYWARD_TLS_CERT_FILE is not: TLS needs both");
    expect(() => readConfig({ KEYWARD_TLS_CLIENT_CA_FILE: certs.caFile }))
      .toThrow("KEYWARD_TLS_CLIENT_CA_FILE needs KEYWARD_TLS_CERT_FILE and KEYWARD_TLS_KEY_FILE (mTLS is TLS with client certificates)");
  });

  it("stops the start naming the variable and path of a missing, unreadable or non-file file", () => {
    const pair = { KEYWARD_TLS_CERT_FILE: certs.server.certFile, KEYWARD_TLS_KEY_FILE: certs.server.keyFile };
    expect(() => readConfig({ ...pair, KEYWARD_TLS_CERT_FILE: "/nonexistent/tls.crt" }))
      .toThrow("KEYWARD_TLS_CERT_FILE: cannot read /nonexistent/tls.crt (no such file)");
    expect(() => readConfig({ ...pair, KEYWARD_TLS_KEY_FILE: certs.dir }))
      .toThrow(`KEYWARD_TLS_KEY_FILE: cannot read ${certs.dir} (not a file)`);
    expect(() => readConfig({ ...pair, KEYWARD_TLS_CLIENT_CA_FILE: join(certs.dir, "nope.pem") }))
      .toThrow(`KEYWARD_TLS_CLIENT_CA_FILE: cannot read ${join(certs.dir, "nope.pem")} (no such file)`);
    if (process.getuid?.() !== 0) {
      const locked = join(certs.dir, "locked.key");
      writeFileSync(locked, "x");
      chmodSync(locked, 0o000);
      expect(() => readConfig({ ...pair, KEYWARD_TLS_KEY_FILE: locked })).toThrow(`KEYWARD_TLS_KEY_FILE: cannot read ${locked} (permission denied)`);
    }
  });

  it("refuses a key that does not match the certificate, and a file that is not PEM, without showing the key", () => {
    expect(() => readTlsContext({ certFile: certs.server.certFile, keyFile: certs.renewed.keyFile }))
      .toThrow(/^KEYWARD_TLS_CERT_FILE and KEYWARD_TLS_KEY_FILE cannot be used together: .*key values mismatch/);
    const garbage = join(certs.dir, "garbage.pem");
    writeFileSync(garbage, "not a certificate\n");
    let message = "";
    try {
      readTlsContext({ certFile: garbage, keyFile: certs.server.keyFile });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^KEYWARD_TLS_CERT_FILE and KEYWARD_TLS_KEY_FILE cannot be used together: /);
    expect(message).not.toContain(certs.server.key.toString("utf8").split("\n")[1]);
  });

  it("the server process exits 1 with the reason before listening when a TLS file is missing", async () => {
    const dirs = await tempDataDir();
    try {
      await expect(startServerProcess({
        dataDir: dirs.dataDir,
        env: { KEYWARD_TLS_CERT_FILE: join(dirs.root, "missing.crt"), KEYWARD_TLS_KEY_FILE: certs.server.keyFile },
      })).rejects.toThrow(`server exited (1) before listening:\nKeyward failed to start: KEYWARD_TLS_CERT_FILE: cannot read ${join(dirs.root, "missing.crt")} (no such file)`);
    } finally {
      await dirs.remove();
    }
  });
});
