/** Room a batch starts with; a buffer grown past KEEP_BYTES for one large batch is dropped once written. */
const INITIAL_BYTES = 64 << 10;
const KEEP_BYTES = 1 << 20;

/** What the commits of one batch wait on: settled once, for all of them, when their write ends. */
export interface BatchOutcome {
  resolve(): void;
  reject(error: unknown): void;
}

/** The lines of the commits waiting for the next group write. */
export interface LineBatch {
  readonly empty: boolean;
  /** Appends `line` and a newline; resolves (or rejects) when the batch it joined is written (or fails). */
  add(line: string): Promise<void>;
  /**
   * Takes the lines so far and the outcome their commits wait on, leaving the batch empty for the next. The bytes
   * stay valid until `release`, which must come before the next `take`.
   */
  take(): { data: Buffer; outcome: BatchOutcome };
  /** The taken bytes were written (or given up on): their buffer holds the next batch but one. */
  release(): void;
}

/**
 * A group commit's batch, encoded as its commits arrive: each line is written into a buffer at once, so a batch
 * costs no array of lines, no join and no copy, and its commits share one promise instead of one each. Two buffers
 * take turns, one filling while the other is written, so a steady load allocates none.
 */
export function createLineBatch(): LineBatch {
  let buffer: Buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  let length = 0;
  let spare: Buffer | undefined;
  let writing: Buffer | undefined;
  let outcome: (BatchOutcome & { promise: Promise<void> }) | undefined;

  function reserve(bytes: number): void {
    if (length + bytes <= buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * buffer.length, length + bytes));
    buffer.copy(grown, 0, 0, length);
    buffer = grown;
  }

  return {
    get empty() {
      return length === 0;
    },

    add(line) {
      // Three bytes per UTF-16 unit is the most UTF-8 can take; measured exactly only when that might not fit.
      reserve(line.length * 3 + 1 <= buffer.length - length ? 0 : Buffer.byteLength(line) + 1);
      length += buffer.write(line, length);
      buffer[length++] = 10;
      if (!outcome) {
        let settle!: BatchOutcome;
        const promise = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
        outcome = { promise, ...settle };
      }
      return outcome.promise;
    },

    take() {
      const taken = { data: buffer.subarray(0, length), outcome: outcome! };
      writing = buffer;
      buffer = spare ?? Buffer.allocUnsafe(INITIAL_BYTES);
      spare = undefined;
      length = 0;
      outcome = undefined;
      return taken;
    },

    release() {
      if (writing && writing.length <= KEEP_BYTES) spare = writing;
      writing = undefined;
    },
  };
}
