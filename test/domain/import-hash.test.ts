import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { importedPlaintext, storedHashOf } from "../../src/domain/import-hash.js";

const digest = (text: string) => createHash("sha256").update(text).digest();

describe("import hashes", () => {
  it("a hex digest is stored as the same 32 bytes in base64, whatever its case; base64 is kept as given", () => {
    const bytes = digest("sk_live_abc");
    expect(storedHashOf(bytes.toString("hex"), "sha256_hex")).toEqual({ hash: bytes.toString("base64") });
    expect(storedHashOf(bytes.toString("hex").toUpperCase(), "sha256_hex")).toEqual({ hash: bytes.toString("base64") });
    expect(storedHashOf(bytes.toString("base64"), "sha256_base64")).toEqual({ hash: bytes.toString("base64") });
  });

  it("refuses what is not a SHA-256 digest in the variant's encoding", () => {
    const bytes = digest("x");
    for (const [hash, variant] of [
      [bytes.toString("hex"), "sha256_base64"], [bytes.toString("base64"), "sha256_hex"], [bytes.toString("base64url"), "sha256_base64"],
      [bytes.toString("base64").slice(0, -1), "sha256_base64"], [`${bytes.toString("hex")}00`, "sha256_hex"], ["", "sha256_hex"],
    ] as const) {
      expect(storedHashOf(hash, variant), `${variant} ${hash}`).toHaveProperty("error");
    }
  });

  it("start: the prefix and 4 characters, never more than 4 characters of the secret itself", () => {
    expect(importedPlaintext("sk_live_abcdefghijkl").start).toBe("sk_live_abcd");
    expect(importedPlaintext("abcdefghijkl").start).toBe("abcd");
    // An `_` inside the random part is not a prefix: too long a prefix, or too little secret after it.
    expect(importedPlaintext("v1live_QHPhdPj7fuM67Sj8RNth_kQf").start).toBe("v1live_QHPh");
    expect(importedPlaintext("averyveryverylongprefix_abcdefghij").start).toBe("aver");
    expect(importedPlaintext("pk_abcdefg_xyz").start).toBe("pk_abcd");
    expect(importedPlaintext("sk_live_abcdefghijkl").hash).toBe(digest("sk_live_abcdefghijkl").toString("base64"));
  });
});
