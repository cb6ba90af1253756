import { readFileSync } from "node:fs";
import { connect as http2Connect } from "node:http2";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID } from "../../support/vias.js";

const committed = (dialect: string) => readFileSync(new URL(`../../../gen/openapi/${dialect}.json`, import.meta.url), "utf8");

describe("GET /v1/openapi.json and /v2/openapi.json", () => {
  const harness = useKeyward();

  for (const dialect of ["v1", "v2"]) {
    const path = `/${dialect}/openapi.json`;

    it(`${path} answers the committed document as application/json, cacheable, without a root key`, async () => {
      const headerCases: Record<string, string>[] = [{}, { authorization: "Bearer kw_root_unknown_key_1234" }, { authorization: "Basic x" }];
      for (const headers of headerCases) {
        const response = await fetch(`${harness.keyward.baseUrl}${path}`, { headers });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("application/json");
        expect(response.headers.get("cache-control")).toBe("public, max-age=300");
        expect(response.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
        expect(response.headers.get("x-request-id")).toMatch(REQUEST_ID);
        const text = await response.text();
        expect(text).toBe(committed(dialect));
        const document = JSON.parse(text);
        expect(document.openapi).toBe("3.1.0");
        expect(Object.keys(document.paths)).toContain(path);
      }
    });

    it(`${path} answers 304 with no body when If-None-Match names the current document`, async () => {
      const first = await fetch(`${harness.keyward.baseUrl}${path}`);
      const etag = first.headers.get("etag")!;
      await first.arrayBuffer();
      const again = await fetch(`${harness.keyward.baseUrl}${path}`, { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
      expect(await again.text()).toBe("");
      const stale = await fetch(`${harness.keyward.baseUrl}${path}`, { headers: { "if-none-match": '"stale"' } });
      expect(stale.status).toBe(200);
      expect((await stale.text()).length).toBe(committed(dialect).length);
    });

    it(`${path} answers HEAD with the headers only and POST with 405 in the ${dialect} error body`, async () => {
      const head = await fetch(`${harness.keyward.baseUrl}${path}`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get("content-length"))).toBe(Buffer.byteLength(committed(dialect)));
      const post = await harness.rest.raw(path, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD");
      const requestId = post.headers.get("x-request-id");
      const message = `POST is not allowed on ${path}; use GET.`;
      expect(post.body).toEqual(dialect === "v2"
        ? {
          meta: { requestId },
          error: { title: "Method Not Allowed", detail: message, status: 405, type: "https://keyward.dev/docs/errors/method_not_allowed" },
        }
        : {
          error: {
            code: "METHOD_NOT_ALLOWED", message, docs: "https://keyward.dev/docs/api-reference/errors/code/METHOD_NOT_ALLOWED", requestId,
          },
        });
    });
  }

  it("serves both documents over cleartext HTTP/2 (h2c) as over HTTP/1.1", async () => {
    const session = http2Connect(harness.keyward.baseUrl);
    try {
      for (const dialect of ["v1", "v2"]) {
        const answer = await new Promise<{ status: number; type: unknown; body: string }>((resolve, reject) => {
          const stream = session.request({ ":method": "GET", ":path": `/${dialect}/openapi.json` });
          let headers: Record<string, unknown> = {};
          stream.on("response", (h) => void (headers = h));
          const chunks: Buffer[] = [];
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("end", () => resolve({ status: Number(headers[":status"]), type: headers["content-type"], body: Buffer.concat(chunks).toString() }));
          stream.on("error", reject);
          stream.end();
        });
        expect({ dialect, status: answer.status, type: answer.type, same: answer.body === committed(dialect) })
          .toEqual({ dialect, status: 200, type: "application/json", same: true });
      }
    } finally {
      session.close();
    }
  });
});
