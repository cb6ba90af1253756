import { decryptKey, encryptKey } from "../../domain/key-encryption.js";
import type { StoredSecret, WebhookRecord } from "../../store/ports/webhooks.js";

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** Encrypts a secret for storage; the endpoint id is bound in, so a ciphertext cannot be moved to another endpoint. */
export function sealSecret(masterKey: Buffer, secret: string, webhookId: string): StoredSecret {
  return encryptKey(masterKey, secret, webhookId);
}

/** The secrets that sign now: the current one and any rotated-out one still in its overlap. */
export function signingSecrets(masterKey: Buffer, record: WebhookRecord, now: number): string[] {
  return record.secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now).map((s) => decryptKey(masterKey, s, record.id));
}
