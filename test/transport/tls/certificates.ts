import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A certificate and its key, as files and as PEM. */
export interface Pair {
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
  /** SHA-256 fingerprint as Node prints it (`AB:CD:...`), to tell which certificate a connection got. */
  fingerprint256: string;
}

export interface TestCertificates {
  dir: string;
  /** The test CA's certificate (PEM), the trust root of every client. */
  ca: Buffer;
  caFile: string;
  /** Server certificates for localhost and 127.0.0.1, both signed by the CA: the served one and its replacement. */
  server: Pair;
  renewed: Pair;
  /** A client certificate (clientAuth) signed by the CA, for mTLS. */
  client: Pair;
  /** A client certificate from another, untrusted CA. */
  stranger: Pair;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync("/usr/bin/openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

function pair(dir: string, name: string): Pair {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  const cert = readFileSync(certFile);
  return { certFile, keyFile, cert, key: readFileSync(keyFile), fingerprint256: new X509Certificate(cert).fingerprint256 };
}

/**
 * Makes a CA, two server certificates and client certificates with Debian's openssl in a fresh temp dir (P-256 keys,
 * valid two days). Synchronous and quick (~100 ms): call it in beforeAll.
 */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), "keyward-tls-"));
  const ca = (name: string, subject: string) => openssl([
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.pem`,
    "-days", "2", "-subj", subject, "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
  ], dir);
  const signed = (name: string, subject: string, signer: string, extensions: string) => {
    writeFileSync(join(dir, `${name}.ext`), extensions);
    openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject], dir);
    openssl([
      "x509", "-req", "-in", `${name}.csr`, "-CA", `${signer}.pem`, "-CAkey", `${signer}.key`, "-CAcreateserial", "-days", "2",
      "-out", `${name}.pem`, "-extfile", `${name}.ext`,
    ], dir);
  };
  const serverExtensions = "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n";
  ca("ca", "/CN=Keyward Test CA");
  ca("other-ca", "/CN=Someone Else's CA");
  signed("server", "/CN=localhost", "ca", serverExtensions);
  signed("renewed", "/CN=localhost", "ca", serverExtensions);
  signed("client", "/CN=keyward-test-client", "ca", "extendedKeyUsage=clientAuth\n");
  signed("stranger", "/CN=keyward-test-stranger", "other-ca", "extendedKeyUsage=clientAuth\n");
  return {
    dir,
    ca: readFileSync(join(dir, "ca.pem")),
    caFile: join(dir, "ca.pem"),
    server: pair(dir, "server"),
    renewed: pair(dir, "renewed"),
    client: pair(dir, "client"),
    stranger: pair(dir, "stranger"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
