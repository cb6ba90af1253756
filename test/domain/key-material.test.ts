import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encodeBase58 } from "../../src/domain/base58.js";
import { hashKey, newSecret, ROOT_KEY_BYTES, ROOT_KEY_PREFIX } from "../../src/domain/key-material.js";

const sequence = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i * 37 + 11) % 256);

describe("hashKey", () => {
  it("is base64(sha256(key)) of the UTF-8 key", () => {
    expect(hashKey("hello")).toBe("LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=");
    expect(hashKey("kw_root_abc")).toBe("kCeNkAcERAFa1y2nYuNNhvSEc/uWU3UjLwHnIhEcdl4=");
    expect(hashKey("schlüssel")).toBe(createHash("sha256").update(Buffer.from("schlüssel", "utf8")).digest("base64"));
  });

  it("differs for keys differing in one character and is 44 characters long", () => {
    expect(hashKey("key_a")).not.toBe(hashKey("key_b"));
    expect(hashKey("anything")).toHaveLength(44);
  });
});

describe("newSecret", () => {
  it("with a prefix: `prefix_` + base58 of the random bytes; start is the prefix plus 4 characters", () => {
    const sizes: number[] = [];
    const secret = newSecret({ prefix: "sk_live", byteLength: 16, randomBytes: (n) => (sizes.push(n), sequence(n)) });
    const encoded = encodeBase58(sequence(16));
    expect(sizes).toEqual([16]);
    expect(secret.key).toBe(`sk_live_${encoded}`);
    expect(secret.start).toBe(`sk_live_${encoded.slice(0, 4)}`);
    expect(secret.hash).toBe(hashKey(secret.key));
  });

  it("without a prefix (or an empty one): just the encoded part, and start is its first 4 characters", () => {
    for (const prefix of [undefined, ""]) {
      const secret = newSecret({ prefix, byteLength: 16, randomBytes: sequence });
      const encoded = encodeBase58(sequence(16));
      expect(secret).toEqual({ key: encoded, hash: hashKey(encoded), start: encoded.slice(0, 4) });
    }
  });

  it("root keys use the kw_root prefix and 32 random bytes", () => {
    expect(ROOT_KEY_PREFIX).toBe("kw_root");
    expect(ROOT_KEY_BYTES).toBe(32);
    const secret = newSecret({ prefix: ROOT_KEY_PREFIX, byteLength: ROOT_KEY_BYTES, randomBytes: sequence });
    expect(secret.key).toMatch(/^kw_root_[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    expect(secret.key).toBe(`kw_root_${encodeBase58(sequence(32))}`);
  });

  it("never puts more of the secret in `start` than the prefix and 4 characters", () => {
    const secret = newSecret({ prefix: "p", byteLength: 255, randomBytes: sequence });
    expect(secret.start).toHaveLength("p_".length + 4);
    expect(secret.key.startsWith(secret.start)).toBe(true);
  });
});
