/** Room a writer starts with; one grown past KEEP_BYTES for a large batch starts small again at reset. */
const INITIAL_BYTES = 64 << 10;
const KEEP_BYTES = 1 << 20;

/**
 * Text encoded as UTF-8 straight into one growing buffer, for a single write: a batch of lines costs no joined
 * string (whose size would put it in the old generation at once) and no second copy to encode it.
 */
export interface ByteWriter {
  readonly length: number;
  write(text: string): void;
  /** The bytes so far; valid until the next write or reset. */
  bytes(): Buffer;
  /** Empties it for the next batch; a buffer grown past KEEP_BYTES is let go. */
  reset(): void;
}

export function createByteWriter(): ByteWriter {
  let buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  let length = 0;
  return {
    get length() {
      return length;
    },
    write(text) {
      // Three bytes per UTF-16 unit is the most UTF-8 can take; measured exactly only when that might not fit.
      const room = buffer.length - length;
      if (text.length * 3 > room) {
        const bytes = Buffer.byteLength(text);
        if (bytes > room) {
          const grown = Buffer.allocUnsafe(Math.max(2 * buffer.length, length + bytes));
          buffer.copy(grown, 0, 0, length);
          buffer = grown;
        }
      }
      length += buffer.write(text, length);
    },
    bytes: () => buffer.subarray(0, length),
    reset() {
      length = 0;
      if (buffer.length > KEEP_BYTES) buffer = Buffer.allocUnsafe(INITIAL_BYTES);
    },
  };
}
