import { hashedPart } from "./keys.js";

/**
 * The Redis Cluster hash slot of `key`: CRC16 (XMODEM) of its hash tag (or of the whole key) modulo 16384, as Redis
 * computes it. Keys are ASCII-escaped by keys.ts, but any string is hashed as its UTF-8 bytes.
 */
export function clusterSlot(key: string): number {
  const bytes = Buffer.from(hashedPart(key), "utf8");
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}
