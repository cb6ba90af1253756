import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { Interceptor } from "@connectrpc/connect";

/**
 * Records every secret the tests see (root keys, keys, plaintexts, encryption keys, metrics tokens) into the run's
 * log folder (KEYWARD_TEST_LOG_DIR, made by test/setup/log-capture.ts), one per line in a file per process. At the end
 * of the run the log check greps every log line the servers wrote for each of them. Without the folder (a test run
 * outside vitest's setup) nothing is recorded.
 */

/** Shorter values are not secrets Keyward makes, and would match log text by chance. */
export const MIN_SECRET_LENGTH = 16;
/** JSON fields that carry a secret in Keyward's answers and requests. */
const SECRET_FIELDS = new Set(["key", "plaintext", "rootKey", "encryptionKey", "token"]);

const seen = new Set<string>();

/** The folder the run's logs and secrets go to, or undefined outside a vitest run with log capture. */
export function testLogDir(): string | undefined {
  return process.env.KEYWARD_TEST_LOG_DIR || undefined;
}

/** Records one secret (once); values shorter than MIN_SECRET_LENGTH are ignored. */
export function recordSecret(value: string | undefined | null): void {
  const dir = testLogDir();
  if (!dir || typeof value !== "string" || value.length < MIN_SECRET_LENGTH || seen.has(value) || /[\r\n]/.test(value)) return;
  seen.add(value);
  appendFileSync(join(dir, `secrets-${process.pid}.txt`), `${value}\n`);
}

/** Records the secrets in a JSON value (or a protobuf message): string values of secret-named fields, at any depth. */
export function recordSecretsIn(value: unknown, depth = 0): void {
  if (depth > 12 || value === null || typeof value !== "object" || value instanceof Uint8Array) return;
  if (Array.isArray(value)) {
    for (const item of value) recordSecretsIn(item, depth + 1);
    return;
  }
  for (const [field, item] of Object.entries(value)) {
    if (typeof item === "string" && SECRET_FIELDS.has(field)) recordSecret(item);
    else recordSecretsIn(item, depth + 1);
  }
}

/** Records the bearer token of an Authorization header value. */
export function recordAuthorization(header: string | null | undefined): void {
  const match = header ? /^Bearer\s+(\S+)/i.exec(header.trim()) : null;
  if (match) recordSecret(match[1]);
}

/** Records secrets in a JSON text; anything that does not parse is ignored. */
export function recordSecretsInJson(text: string): void {
  if (!text || (text[0] !== "{" && text[0] !== "[")) return;
  try {
    recordSecretsIn(JSON.parse(text));
  } catch {
    // not JSON: nothing to record
  }
}

/** A Connect interceptor for test clients: the bearer token, the request message and the answer's secrets. */
export const recordRpcSecrets: Interceptor = (next) => async (req) => {
  recordAuthorization(req.header.get("authorization"));
  if (!req.stream) recordSecretsIn(req.message);
  const res = await next(req);
  if (!res.stream) recordSecretsIn(res.message);
  return res;
};
