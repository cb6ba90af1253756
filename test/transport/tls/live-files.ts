import { copyFileSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import type { TlsFiles } from "../../../src/transport/tls-certificates.js";
import type { Pair } from "./certificates.js";

/** The files a server is configured with, in a folder of their own, filled from `pair`. */
export function liveFiles(dir: string, pair: Pair): TlsFiles {
  mkdirSync(dir, { recursive: true });
  const files = { certFile: join(dir, "tls.crt"), keyFile: join(dir, "tls.key") };
  copyFileSync(pair.certFile, files.certFile);
  copyFileSync(pair.keyFile, files.keyFile);
  return files;
}

/** Replaces the live files with `pair` as deploy tools do: each written beside, then renamed into place (key first). */
export function swapIn(files: TlsFiles, pair: Pair): void {
  copyFileSync(pair.keyFile, `${files.keyFile}.new`);
  copyFileSync(pair.certFile, `${files.certFile}.new`);
  renameSync(`${files.keyFile}.new`, files.keyFile);
  renameSync(`${files.certFile}.new`, files.certFile);
}
