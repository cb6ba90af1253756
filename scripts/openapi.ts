// `npm run generate` step (run with tsx after buf): writes the OpenAPI 3.1 documents of REST v1 and v2 to gen/openapi/
// from the freshly generated descriptors and the server's own route table. Offline and deterministic.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICES } from "../src/app.js";
import { buildDocuments } from "../src/openapi/build-documents.js";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "gen", "openapi");
mkdirSync(out, { recursive: true });
for (const [dialect, document] of Object.entries(buildDocuments(SERVICES))) {
  writeFileSync(join(out, `${dialect}.json`), `${JSON.stringify(document, null, 2)}\n`);
}
