import { ConnectError } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { KeywardError } from "../domain/errors.js";
import type { ExchangeResponse } from "../transport/exchange.js";
import { csrfTokenOf } from "./session-token.js";

/** What the page learns about its session: never the root key, never the session token itself. */
export function sessionView(
  token: string, expiresAt: number, principal: { workspaceId: string; rootKeyId: string; permissions: ReadonlySet<string> }, rootKeyName: string | undefined,
) {
  return {
    csrfToken: csrfTokenOf(token),
    expiresAt,
    workspaceId: principal.workspaceId,
    rootKeyId: principal.rootKeyId,
    rootKeyName,
    permissions: [...principal.permissions].sort(),
  };
}

/** The root key of a sign-in body `{"rootKey": "..."}`; 400 for a malformed body, 401 for a malformed key. */
export function parseSignIn(body: Buffer): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    throw new KeywardError("invalid", "The sign-in body must be JSON: {\"rootKey\": \"...\"}.");
  }
  const rootKey = (parsed as { rootKey?: unknown } | null)?.rootKey;
  if (typeof rootKey !== "string" || rootKey.length === 0) throw new KeywardError("invalid", "rootKey is required.");
  if (!/^[\x21-\x7e]{1,512}$/.test(rootKey)) throw new KeywardError("unauthenticated", "The root key is malformed.");
  return rootKey;
}

/** A JSON answer that no cache keeps. */
export function json(res: ExchangeResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "cache-control": "no-store" });
  res.end(text);
}

/**
 * The answer to a sign-in from a locked-out address: 429 with `Retry-After` in whole seconds (at least 1) and the
 * same wait in words for the sign-in form, which shows the message as it comes.
 */
export function tooManySignIns(res: ExchangeResponse, retryAfterMs: number): void {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  res.setHeader("retry-after", String(seconds));
  json(res, 429, {
    error: { code: "rate_limited", message: `Too many failed sign-in attempts from this address; try again in ${seconds} s.` },
  });
}

/** A Connect error answer, as the API's Connect handler writes them. */
export function rpcError(res: ExchangeResponse, error: ConnectError): void {
  const body = errorToJsonBytes(error, {});
  res.writeHead(codeToHttpStatus(error.code), { "content-type": "application/json", "content-length": body.byteLength, "cache-control": "no-store" });
  res.end(body);
}
