import type { IncomingHttpHeaders } from "node:http2";
import { assignRequestId } from "./connect/adapter.js";
import type { ConnectUnaryHandler } from "./connect/handler.js";
import type { ExchangeRequest, ExchangeResponse } from "./exchange.js";
import { isGrpcRequest, type GrpcStreamHandler } from "./grpc/handler.js";
import { H2Request, H2Response } from "./h2-exchange.js";
import type { Handler, StreamHandler } from "./server.js";

type Entry = (req: ExchangeRequest, res: ExchangeResponse) => unknown;

/** Every entry a request can reach; each protocol's own, plus what the app mounts beside them. */
export interface Entries {
  /** REST v1 and v2: every path under /v1/ and /v2/. */
  rest: Entry;
  /** The dashboard (src/dashboard), mounted by the app under /dashboard. */
  dashboard: Entry;
  /** Whether a request outside /dashboard is a person's browser to be sent there (GET / asking for HTML). */
  wantsDashboard: (req: ExchangeRequest) => boolean;
  /** GET /metrics; false when the request is not for it (or metrics are off). */
  metrics: (req: ExchangeRequest, res: ExchangeResponse) => boolean;
  /** Connect unary POSTs; false leaves the request to connect-node. */
  connectUnary: ConnectUnaryHandler;
  /** gRPC over HTTP/2 (the raw stream); false leaves the stream to the request handler. */
  grpc: GrpcStreamHandler;
  /** connect-node's adapter: gRPC-Web, compressed or GET Connect calls, streams, health, reflection, unknown paths. */
  connectNode: Handler;
}

/**
 * The one dispatch of the port, as connect-es's node adapter is one path map with a fallback: each request goes to
 * exactly one entry, chosen from the path and content type, and no protocol sees the routing. `handler` serves
 * HTTP/1.1 and Node's HTTP/2 compatibility objects; `stream` sees each HTTP/2 stream first and answers gRPC, REST
 * and Connect unary calls straight off it (returning false passes the stream to `handler`).
 */
export function createDispatch(entries: Entries): { handler: Handler; stream: StreamHandler } {
  const handler: Handler = (req, res) => {
    const url = req.url ?? "";
    if (isRestPath(url)) void entries.rest(req, res);
    else if (url.startsWith("/dashboard") || entries.wantsDashboard(req)) void entries.dashboard(req, res);
    else if (entries.metrics(req, res)) return;
    else if (!entries.connectUnary(req, res)) {
      // Failures connect-node raises before any handler runs still carry a request id.
      assignRequestId(req, res);
      entries.connectNode(req, res);
    }
  };
  const stream: StreamHandler = (h2stream, headers: IncomingHttpHeaders) => {
    if (isGrpcRequest(headers)) return entries.grpc(h2stream, headers);
    if (isRestPath(headers[":path"] ?? "")) {
      void entries.rest(new H2Request(h2stream, headers), new H2Response(h2stream));
      return true;
    }
    return entries.connectUnary(new H2Request(h2stream, headers), new H2Response(h2stream));
  };
  return { handler, stream };
}

/** /metrics is outside the REST namespaces: /v1/metrics and /v2/metrics are unknown REST routes. */
function isRestPath(path: string): boolean {
  return path.startsWith("/v1/") || path.startsWith("/v2/");
}
