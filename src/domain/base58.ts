/** Bitcoin base58 alphabet; its characters are in ASCII order, so fixed-width encodings sort like the numbers. */
export const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Encodes bytes as base58 (big-endian); with `width`, left-pads with "1" so encodings sort numerically. */
export function encodeBase58(bytes: Uint8Array, width?: number): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = "";
  while (value > 0n) {
    out = BASE58_ALPHABET[Number(value % 58n)] + out;
    value /= 58n;
  }
  // Leading zero bytes carry no value; keep them as "1"s like standard base58.
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = "1" + out;
  }
  return width === undefined ? out : out.padStart(width, "1");
}
