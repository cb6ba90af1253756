import { hashKey } from "./key-material.js";

/** The hash encodings an import accepts: Unkey's, and the hex form most home-grown key tables hold. */
export const HASH_VARIANTS = ["sha256_base64", "sha256_hex"] as const;
export type HashVariant = (typeof HASH_VARIANTS)[number];

export const isHashVariant = (value: string): value is HashVariant => (HASH_VARIANTS as readonly string[]).includes(value);

const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * The stored form of an imported key's hash, base64(sha256(key)), from the hash as the caller encoded it: a hex
 * digest is the same 32 bytes re-encoded, so an imported key is found by the same lookup as a native one. Returns
 * an error message instead when the text is not a SHA-256 digest in that encoding.
 */
export function storedHashOf(hash: string, variant: HashVariant): { hash: string } | { error: string } {
  if (variant === "sha256_base64") {
    return BASE64_SHA256.test(hash) ? { hash } : { error: "must be 44 characters of standard base64 (a SHA-256 digest)" };
  }
  return HEX_SHA256.test(hash) ? { hash: Buffer.from(hash, "hex").toString("base64") } : { error: "must be 64 hex digits (a SHA-256 digest)" };
}

/** A prefix is at most 16 characters before its `_` (as Keyward's own), and leaves at least this much secret after. */
const MAX_PREFIX = 16;
const MIN_SECRET_AFTER_PREFIX = 8;

/**
 * A plaintext secret's stored hash and the `start` shown for it: its prefix and 4 more characters. The prefix ends
 * at the last `_` that keeps it within 16 characters and leaves at least 8 characters of secret (a foreign secret
 * may hold `_` in its random part: `start` must never show more than its first 4 characters); none such, no prefix.
 */
export function importedPlaintext(plaintext: string): { hash: string; start: string } {
  let cut = 0;
  for (let at = plaintext.indexOf("_"); at !== -1 && at <= MAX_PREFIX; at = plaintext.indexOf("_", at + 1)) {
    if (plaintext.length - (at + 1) >= MIN_SECRET_AFTER_PREFIX) cut = at + 1;
  }
  return { hash: hashKey(plaintext), start: plaintext.slice(0, cut + 4) };
}
