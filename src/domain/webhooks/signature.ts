import { createHmac } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks asks for 24 to 64). */
export function newSecret(randomBytes: (size: number) => Uint8Array): string {
  return SECRET_PREFIX + Buffer.from(randomBytes(32)).toString("base64");
}

/**
 * The `webhook-signature` header of one message (Standard Webhooks): `v1,` + base64 HMAC-SHA256 of
 * `${id}.${timestamp}.${body}` keyed with each secret's decoded bytes, space-separated, so during a rotation's
 * overlap a receiver holding either secret verifies. `timestamp` is in seconds.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac("sha256", Buffer.from(secret.slice(SECRET_PREFIX.length), "base64")).update(content).digest("base64")}`)
    .join(" ");
}
