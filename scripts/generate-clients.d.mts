/** Types for generate-clients.mjs (plain JS so `node` can run it without a TypeScript loader). */

/** The Go module path of the generated Go code. */
export const GO_MODULE: string;

/** Writes proto/ and the requested languages' stubs under `out` (replacing it); throws when protoc or a plugin is missing. */
export function generateClients(options: { out: string; languages?: Array<"python" | "go"> }): void;
