/** Bitcoin base58 alphabet; its characters are in ASCII order, so fixed-width encodings sort like the numbers. */
export const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Encodes bytes as base58 (big-endian); with `width`, left-pads with "1" so encodings sort numerically. */
export function encodeBase58(bytes: Uint8Array, width?: number): string {
  // The value in limbs of 58^5, least significant first, fed two bytes at a time: limb * 65536 + carry stays
  // below 2^53, so plain numbers suffice (no BigInt; request ids are encoded on every request).
  const limbs: number[] = [];
  for (let at = bytes.length % 2 === 1 ? -1 : 0; at < bytes.length; at += 2) {
    const base = at === -1 ? 256 : 65536;
    let carry = at === -1 ? bytes[0] : bytes[at] * 256 + bytes[at + 1];
    for (let i = 0; i < limbs.length; i++) {
      carry += limbs[i] * base;
      limbs[i] = carry % LIMB;
      carry = Math.floor(carry / LIMB);
    }
    while (carry > 0) {
      limbs.push(carry % LIMB);
      carry = Math.floor(carry / LIMB);
    }
  }
  let digits = "";
  for (let i = limbs.length - 1; i >= 0; i--) {
    let limb = limbs[i];
    let chunk = "";
    for (let d = 0; d < LIMB_DIGITS; d++) {
      chunk = BASE58_ALPHABET[limb % 58] + chunk;
      limb = Math.floor(limb / 58);
    }
    digits += chunk;
  }
  let out = "";
  // Leading zero bytes carry no value; keep them as "1"s like standard base58.
  for (const byte of bytes) {
    if (byte !== 0) break;
    out += "1";
  }
  // Zero digits left of the most significant one came from the top limb's padding, not from the value.
  let first = 0;
  while (first < digits.length && digits[first] === "1") first++;
  out += digits.slice(first);
  return width === undefined ? out : out.padStart(width, "1");
}

const LIMB_DIGITS = 5;
const LIMB = 58 ** LIMB_DIGITS;
