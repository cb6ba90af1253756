/** Types for proto-deps.mjs (plain JS so `node` can run it without a TypeScript loader). */

/** Writes the third-party protos Keyward's protos import under `dir`. */
export function writeProtoDeps(dir: string): void;
