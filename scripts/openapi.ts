// `npm run generate` step (run with tsx after buf): writes the OpenAPI 3.1 documents of REST v1 and v2 to gen/openapi/
// from the freshly generated descriptors and the server's own route table. Offline and deterministic.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICES } from "../src/app.js";
import { buildDocuments } from "../src/openapi/build-documents.js";
import { protoComments } from "../src/openapi/proto-comments.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "gen", "openapi");
// The buf image generate.mjs builds: the proto comments, which the generated descriptors leave out.
const comments = protoComments(readFileSync(process.argv[2] ?? join(root, ".proto-deps", "image.binpb")));
mkdirSync(out, { recursive: true });
for (const [dialect, document] of Object.entries(buildDocuments(SERVICES, comments))) {
  writeFileSync(join(out, `${dialect}.json`), `${JSON.stringify(document, null, 2)}\n`);
}
