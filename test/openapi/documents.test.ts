import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { createApp, SERVICES } from "../../src/app.js";
import { buildDocuments } from "../../src/openapi/build-documents.js";
import { protoComments } from "../../src/openapi/proto-comments.js";
import { openStores } from "../../src/open-stores.js";
import { v1Mappings, v2Mappings } from "../../src/transport/rest/v1-dialect.js";
import { v1Shapes } from "../../src/openapi/v1-shapes.js";
import { v2Shapes } from "../../src/openapi/v2-shapes.js";
import { committedDocument, operationsOf } from "../support/openapi-schemas.js";
import { useKeyward } from "../support/use-keyward.js";

const DIALECTS = ["v1", "v2"] as const;
const IMAGE = new URL("../../.proto-deps/image.binpb", import.meta.url);

describe("the OpenAPI documents", () => {
  for (const dialect of DIALECTS) {
    it(`${dialect} validates as OpenAPI 3.1 with no error and no warning`, async () => {
      const result = await validate(committedDocument(dialect) as Parameters<typeof validate>[0]);
      expect(result).toEqual({ valid: true, warnings: [], specification: "OpenAPI" });
    });

    // The image with the proto comments comes from `npm run generate` (CI runs it first).
    it.skipIf(!existsSync(IMAGE))(`${dialect} is what the generator builds from the current descriptors (gen/ is current)`, () => {
      const built = buildDocuments(SERVICES, protoComments(readFileSync(IMAGE)));
      expect(committedDocument(dialect)).toEqual(JSON.parse(JSON.stringify(built[dialect])));
    });
  }

  it("documents exactly the routes the REST router serves", async () => {
    const dir = await mkdtemp(join(tmpdir(), "keyward-openapi-"));
    const stores = await openStores({ dataDir: dir });
    try {
      const app = createApp(stores);
      await app.stop();
      const served = app.restRoutes.map(({ verb, path }) => `${verb} ${path}`).sort();
      const documented = DIALECTS.flatMap((dialect) => operationsOf(committedDocument(dialect)).map(({ verb, path }) => `${verb} ${path}`)).sort();
      expect(documented).toEqual(served);
      expect(served).toContain("POST /v1/keys");
      expect(served).toContain("POST /v1/keys/verify");
      expect(served).toContain("GET /v2/openapi.json");
    } finally {
      await stores.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("describes every route a dialect mapping reshapes (a new mapping needs its documented shape)", () => {
    const mapped = [...Object.keys(v1Mappings), ...Object.keys(v2Mappings)].sort();
    const shaped = new Set([...Object.keys(v1Shapes), ...Object.keys(v2Shapes)]);
    expect(mapped.filter((path) => !shaped.has(path))).toEqual([]);
  });

  it("marks public exactly the routes that need no root key: v1 verification, liveness and the documents", () => {
    const open = DIALECTS.flatMap((dialect) => operationsOf(committedDocument(dialect)).filter((op) => op.public).map((op) => op.path)).sort();
    expect(open).toEqual([
      "/v1/keys.verifyKey", "/v1/keys/verify", "/v1/liveness", "/v1/openapi.json", "/v2/liveness", "/v2/openapi.json",
    ]);
  });
});

describe("every documented route is served", () => {
  const harness = useKeyward();

  it("reaches its operation: neither 'No route' (404) nor a wrong method (405)", async () => {
    for (const dialect of DIALECTS) {
      for (const { verb, path } of operationsOf(committedDocument(dialect))) {
        const response = await fetch(`${harness.keyward.baseUrl}${path}`, {
          method: verb, headers: verb === "POST" ? { "content-type": "application/json" } : {}, body: verb === "POST" ? "{}" : undefined,
        });
        const body = await response.json();
        const detail = String(body.error?.detail ?? body.error?.message ?? "");
        expect({ verb, path, wrongMethod: response.status === 405, routed: !detail.startsWith("No route") })
          .toEqual({ verb, path, wrongMethod: false, routed: true });
      }
    }
  });
});
