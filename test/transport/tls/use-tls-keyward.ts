import { afterAll, beforeAll } from "vitest";
import { readTlsContext } from "../../../src/transport/tls-certificates.js";
import { startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { makeTestCertificates, type TestCertificates } from "./certificates.js";

/** One TLS Keyward for a test file and the certificates it was started with (filled in before the first test). */
export interface TlsHarness {
  certs: TestCertificates;
  keyward: RunningKeyward;
}

/**
 * Makes fresh test certificates and starts Keyward in this process serving TLS with the `server` pair, read from
 * its files as main.ts reads them; with `mtls`, clients must present a certificate the test CA signed.
 */
export function useTlsKeyward(options: { mtls?: boolean } = {}): TlsHarness {
  const harness = {} as TlsHarness;
  beforeAll(async () => {
    const certs = makeTestCertificates();
    const files = { certFile: certs.server.certFile, keyFile: certs.server.keyFile, clientCaFile: options.mtls ? certs.caFile : undefined };
    const keyward = await startKeyward({ tls: { context: readTlsContext(files), requireClientCertificate: options.mtls === true } });
    Object.assign(harness, { certs, keyward });
  });
  afterAll(async () => {
    await harness.keyward?.stop();
    harness.certs?.remove();
  });
  return harness;
}
