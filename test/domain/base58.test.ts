import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BASE58_ALPHABET, encodeBase58 } from "../../src/domain/base58.js";

const bytes = (text: string) => new TextEncoder().encode(text);

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

describe("encodeBase58", () => {
  it("matches the published Bitcoin base58 vectors", () => {
    expect(encodeBase58(bytes("Hello World!"))).toBe("2NEpo7TZRRrLZSi2U");
    expect(encodeBase58(bytes("The quick brown fox jumps over the lazy dog."))).toBe(
      "USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z",
    );
    expect(encodeBase58(Uint8Array.from([0x00, 0x00, 0x28, 0x7f, 0xb4, 0xcd]))).toBe("11233QC4");
    expect(encodeBase58(bytes("a"))).toBe("2g");
  });

  it("encodes nothing as the empty string and each leading zero byte as '1'", () => {
    expect(encodeBase58(new Uint8Array(0))).toBe("");
    expect(encodeBase58(Uint8Array.from([0]))).toBe("1");
    expect(encodeBase58(new Uint8Array(16))).toBe("1".repeat(16));
    expect(encodeBase58(Uint8Array.from([0, 0, 57]))).toBe("11z");
  });

  it("uses only the 58-character alphabet, which excludes 0, O, I and l, and is in ASCII order", () => {
    expect(BASE58_ALPHABET).toHaveLength(58);
    expect([...BASE58_ALPHABET].sort().join("")).toBe(BASE58_ALPHABET);
    for (const excluded of ["0", "O", "I", "l"]) expect(BASE58_ALPHABET).not.toContain(excluded);
    fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }), (input) => {
      expect(encodeBase58(input)).toMatch(/^[1-9A-HJ-NP-Za-km-z]*$/);
    }));
  });

  it("with a width, left-pads with '1' (zero) to that width; 16 bytes always fit in 22 characters", () => {
    expect(encodeBase58(Uint8Array.from([57]), 4)).toBe("111z");
    expect(encodeBase58(new Uint8Array(16).fill(0xff), 22)).toBe("YcVfxkQb6JRzqk5kF2tNLv");
    expect(encodeBase58(new Uint8Array(16), 22)).toBe("1".repeat(22));
    fc.assert(fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (input) => {
      expect(encodeBase58(input, 22)).toHaveLength(22);
    }));
  });

  it("with a fixed width, string order equals the order of the encoded numbers", () => {
    const sixteen = fc.uint8Array({ minLength: 16, maxLength: 16 });
    fc.assert(fc.property(sixteen, sixteen, (a, b) => {
      const byBytes = Math.sign(compareBytes(a, b));
      const x = encodeBase58(a, 22);
      const y = encodeBase58(b, 22);
      expect(x < y ? -1 : x > y ? 1 : 0).toBe(byBytes);
    }), { numRuns: 2000 });
    // Neighbours across a carry: 0x..00ff < 0x..0100.
    const low = new Uint8Array(16); low[15] = 0xff;
    const high = new Uint8Array(16); high[14] = 0x01;
    expect(encodeBase58(low, 22) < encodeBase58(high, 22)).toBe(true);
  });

  it("is a bijection on fixed-width inputs: distinct bytes give distinct encodings", () => {
    const seen = new Map<string, string>();
    for (let i = 0; i < 256; i++) {
      for (const j of [0, 1, 57, 58, 255]) {
        const input = Uint8Array.from([i, j]);
        const encoded = encodeBase58(input, 3);
        expect(seen.get(encoded)).toBeUndefined();
        seen.set(encoded, `${i},${j}`);
      }
    }
    expect(seen.size).toBe(256 * 5);
  });

  it("equals the plain big-integer conversion for any bytes, leading zeros included", () => {
    const reference = (input: Uint8Array): string => {
      let value = 0n;
      for (const byte of input) value = (value << 8n) | BigInt(byte);
      let out = "";
      for (; value > 0n; value /= 58n) out = BASE58_ALPHABET[Number(value % 58n)] + out;
      return "1".repeat(input.findIndex((byte) => byte !== 0) === -1 ? input.length : input.findIndex((byte) => byte !== 0)) + out;
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(4), (input, zeros) => {
      const padded = new Uint8Array([...new Uint8Array(zeros), ...input]);
      expect(encodeBase58(padded)).toBe(reference(padded));
    }), { numRuns: 2_000 });
  });
});
