import { X509Certificate } from "node:crypto";
import { readFileSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import { createSecureContext, type SecureContextOptions } from "node:tls";

/** The PEM files Keyward serves TLS from (KEYWARD_TLS_CERT_FILE, KEYWARD_TLS_KEY_FILE, KEYWARD_TLS_CLIENT_CA_FILE). */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** Set: clients must present a certificate this CA (bundle) signed (mTLS). */
  clientCaFile?: string;
}

/** What a reload says about itself in the log: never key material, only where it came from and what is served. */
export interface ReloadLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

type Contents = { cert: Buffer; key: Buffer; ca?: Buffer };

const VARIABLES = { cert: "KEYWARD_TLS_CERT_FILE", key: "KEYWARD_TLS_KEY_FILE", ca: "KEYWARD_TLS_CLIENT_CA_FILE" } as const;

/** Why a file could not be read, in words for an operator (the errno name when there are none). */
export function unreadableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : code === "EISDIR" ? "not a file" : code ?? String(error);
}

function readAll(files: TlsFiles): Contents {
  const read = (name: keyof typeof VARIABLES, path: string) => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new Error(`${VARIABLES[name]}: cannot read ${path} (${unreadableReason(error)})`);
    }
  };
  return {
    cert: read("cert", files.certFile),
    key: read("key", files.keyFile),
    ca: files.clientCaFile === undefined ? undefined : read("ca", files.clientCaFile),
  };
}

/** The context options of `contents`, checked the way the TLS server will use them (key matches cert, PEM parses). */
function checkedContext(contents: Contents): SecureContextOptions {
  const context: SecureContextOptions = { cert: contents.cert, key: contents.key, ...(contents.ca ? { ca: contents.ca } : {}) };
  try {
    createSecureContext(context);
  } catch (error) {
    // OpenSSL's reason ("key values mismatch", "no start line"): it names no key material.
    throw new Error(`${VARIABLES.cert} and ${VARIABLES.key} cannot be used together: ${(error as Error).message}`);
  }
  return context;
}

/**
 * Reads and checks the TLS files for the server's start; throws a message naming the variable and file that is
 * missing or unreadable, or why the certificate and key do not work together.
 */
export function readTlsContext(files: TlsFiles): SecureContextOptions {
  return checkedContext(readAll(files));
}

function describe(cert: Buffer): { subject: string; validTo: string; fingerprint256: string } {
  try {
    const x509 = new X509Certificate(cert);
    return { subject: x509.subject, validTo: x509.validTo, fingerprint256: x509.fingerprint256 };
  } catch {
    return { subject: "?", validTo: "?", fingerprint256: "?" };
  }
}

export interface CertificateReloader {
  /**
   * Reads the files again and, when they changed and work together, hands the new context to `apply` (new
   * connections get it; open ones keep theirs). Unreadable or mismatched files keep the previous context and log why.
   * Returns whether a new context was applied.
   */
  reload(trigger: string): boolean;
  /** Stops watching the files. */
  close(): void;
}

/**
 * Reloads the served certificate without a restart: on `reload(trigger)` (main.ts calls it on SIGHUP) and, with
 * `watch`, when anything changes in the files' folders (a rename into place, a Kubernetes secret's symlink swap),
 * debounced so a cert and key written one after the other are read once both are there. A half-written pair fails
 * the check, is logged and skipped, and the next change event tries again.
 */
export function createCertificateReloader(options: {
  files: TlsFiles;
  /** The server's setSecureContext. */
  apply(context: SecureContextOptions): void;
  logger: ReloadLogger;
  /** The context the server was started with (readTlsContext's answer), so a reload compares against what is served. */
  served?: SecureContextOptions;
  watch?: boolean;
  debounceMs?: number;
}): CertificateReloader {
  const { files, logger } = options;
  let current: Contents | undefined = options.served && contentsOf(options.served);
  if (!current) {
    try {
      current = readAll(files);
    } catch {
      // Unreadable now: the first reload that can read them applies them.
    }
  }
  function reload(trigger: string): boolean {
    let next: Contents;
    let context: SecureContextOptions;
    try {
      next = readAll(files);
      if (current && next.cert.equals(current.cert) && next.key.equals(current.key) && equalOrBothAbsent(next.ca, current.ca)) return false;
      context = checkedContext(next);
      options.apply(context);
    } catch (error) {
      logger.warn({ trigger, reason: (error as Error).message }, "TLS certificates not reloaded; the previous certificate is still served");
      return false;
    }
    current = next;
    logger.info({ trigger, ...describe(next.cert) }, "TLS certificates reloaded; new connections get the new certificate");
    return true;
  }
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  if (options.watch ?? true) {
    const paths = [files.certFile, files.keyFile, ...(files.clientCaFile ? [files.clientCaFile] : [])];
    for (const folder of new Set(paths.map((path) => dirname(path)))) {
      const names = new Set(paths.filter((path) => dirname(path) === folder).map((path) => basename(path)));
      try {
        const watcher = watch(folder, { persistent: false }, (_event, name) => {
          // Other files in the folder change too; names starting with ".." are Kubernetes' atomic-swap links.
          if (name !== null && !names.has(String(name)) && !String(name).startsWith("..")) return;
          clearTimeout(timer);
          timer = setTimeout(() => reload("file change"), options.debounceMs ?? 250);
          timer.unref();
        });
        watcher.on("error", (error) => logger.warn({ folder, reason: error.message }, "TLS certificate folder no longer watched; SIGHUP still reloads"));
        watchers.push(watcher);
      } catch (error) {
        logger.warn({ folder, reason: (error as Error).message }, "TLS certificate folder not watched; SIGHUP still reloads");
      }
    }
  }
  return {
    reload,
    close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}

function contentsOf(context: SecureContextOptions): Contents | undefined {
  const { cert, key, ca } = context;
  if (!Buffer.isBuffer(cert) || !Buffer.isBuffer(key) || (ca !== undefined && !Buffer.isBuffer(ca))) return undefined;
  return { cert, key, ca };
}

function equalOrBothAbsent(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}
