import { createHash, randomBytes } from "node:crypto";

/** A secret as another system issued it, and its SHA-256 digest in both encodings an import accepts. */
export interface ForeignKey {
  plaintext: string;
  base64: string;
  hex: string;
}

/** A fresh foreign secret (`prefix_` + 32 random hex digits) with its digests. */
export function foreignKey(prefix = "legacy"): ForeignKey {
  const plaintext = `${prefix}_${randomBytes(16).toString("hex")}`;
  const digest = createHash("sha256").update(plaintext).digest();
  return { plaintext, base64: digest.toString("base64"), hex: digest.toString("hex") };
}

/** The hash of `key` in `variant`'s encoding. */
export const hashIn = (key: ForeignKey, variant: "sha256_base64" | "sha256_hex") => (variant === "sha256_hex" ? key.hex : key.base64);
