import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

export interface EncryptedKey {
  iv: string;
  ciphertext: string;
  tag: string;
}

/** AES-256-GCM with a fresh 96-bit IV; the key id is bound as additional data so ciphertexts cannot be swapped. */
export function encryptKey(masterKey: Buffer, plaintext: string, keyId: string): EncryptedKey {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
  cipher.setAAD(Buffer.from(keyId, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return { iv: iv.toString("base64"), ciphertext: ciphertext.toString("base64"), tag: cipher.getAuthTag().toString("base64") };
}

/** Inverse of encryptKey; throws when the master key, the key id or the ciphertext do not match. */
export function decryptKey(masterKey: Buffer, encrypted: EncryptedKey, keyId: string): string {
  const decipher = createDecipheriv("aes-256-gcm", masterKey, Buffer.from(encrypted.iv, "base64"));
  decipher.setAAD(Buffer.from(keyId, "utf8"));
  decipher.setAuthTag(Buffer.from(encrypted.tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(encrypted.ciphertext, "base64")), decipher.final()]).toString("utf8");
}
