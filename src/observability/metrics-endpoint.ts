import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Metrics } from "./metrics.js";

/** KEYWARD_METRICS / KEYWARD_METRICS_TOKEN: no endpoint, an open one, or one that wants `Authorization: Bearer <token>`. */
export type MetricsAccess = { mode: "off" } | { mode: "open" } | { mode: "token"; token: string };

export const METRICS_PATH = "/metrics";

// What the endpoint reads and writes of an exchange: a structural view, so any transport's request fits.
interface MetricsRequest {
  url?: string;
  method?: string;
  headers: IncomingHttpHeaders;
}

interface MetricsResponse {
  writeHead(status: number, headers: Record<string, string | number>): unknown;
  end(body: string): unknown;
}

/**
 * GET /metrics in Prometheus text format, outside the /v1 and /v2 namespaces. Returns false for any other path, and
 * for /metrics too when access is `off` (the path then answers as any unknown path does). With a token, a missing or
 * wrong bearer token gets 401; the comparison is on digests, in constant time. Scrapes are not counted as requests.
 */
export function createMetricsEndpoint(options: { metrics: Metrics; access: MetricsAccess }) {
  const { metrics, access } = options;
  const expected = access.mode === "token" ? digest(access.token) : undefined;

  return function serveMetrics(req: MetricsRequest, res: MetricsResponse): boolean {
    if (access.mode === "off") return false;
    const url = req.url ?? "";
    if (url !== METRICS_PATH && !url.startsWith(`${METRICS_PATH}?`)) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" });
      res.end("Use GET /metrics.\n");
      return true;
    }
    if (expected && !bearerMatches(req.headers.authorization, expected)) {
      res.writeHead(401, { "www-authenticate": 'Bearer realm="metrics"', "content-type": "text/plain" });
      res.end("GET /metrics needs Authorization: Bearer <KEYWARD_METRICS_TOKEN>.\n");
      return true;
    }
    metrics.render().then(
      (text) => {
        res.writeHead(200, { "content-type": metrics.contentType, "content-length": Buffer.byteLength(text) });
        res.end(req.method === "HEAD" ? "" : text);
      },
      () => {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end("collecting metrics failed\n");
      },
    );
    return true;
  };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = header ? /^Bearer (\S+)$/.exec(header.trim()) : null;
  return match !== null && timingSafeEqual(digest(match[1]), expected);
}
