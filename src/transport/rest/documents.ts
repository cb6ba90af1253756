import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { KeywardError } from "../../domain/errors.js";
import { DOCUMENT_PATHS } from "./document-paths.js";
import { packageFile } from "../../package-file.js";
import type { ExchangeRequest, ExchangeResponse } from "../exchange.js";
import { REQUEST_ID_HEADER } from "../request-id.js";

/** A static JSON document and its validator. */
export interface ServedDocument {
  body: Buffer;
  etag: string;
}

/**
 * The committed OpenAPI documents (gen/openapi, written by `npm run generate`) by the path that serves them, read
 * once: what is served is byte for byte what CI's drift check covers.
 */
export function loadOpenApiDocuments(): Map<string, ServedDocument> {
  const documents = new Map<string, ServedDocument>();
  for (const [dialect, path] of Object.entries(DOCUMENT_PATHS)) {
    const body = readFileSync(packageFile(`gen/openapi/${dialect}.json`));
    documents.set(path, { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` });
  }
  return documents;
}

/** GET (or HEAD) of a document: no root key, cacheable, 304 when the client's copy is current; 405 otherwise. */
export function serveDocument(req: ExchangeRequest, res: ExchangeResponse, document: ServedDocument, requestId: string): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("allow", "GET, HEAD");
    throw new KeywardError("method_not_allowed", `${req.method} is not allowed on ${req.url}; use GET.`);
  }
  const current = req.headers["if-none-match"] === document.etag;
  res.writeHead(current ? 304 : 200, {
    "content-type": "application/json",
    "cache-control": "public, max-age=300",
    etag: document.etag,
    [REQUEST_ID_HEADER]: requestId,
    ...(current ? {} : { "content-length": document.body.length }),
  });
  res.end(current || req.method === "HEAD" ? "" : document.body);
}
