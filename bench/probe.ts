/**
 * One real request per target before the load. h2load only sees HTTP statuses, and a gRPC error is an
 * HTTP 200 with a non-zero `grpc-status`, so this is where a wrong request is caught before it is
 * measured as fast.
 */
import { request as h1Request } from "node:http";
import { connect } from "node:http2";

export interface ProbeRequest {
  url: string;
  protocol: "h1" | "h2c";
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

export interface ProbeResponse {
  status: number;
  /** From trailers, or from headers for a trailers-only answer; undefined when not gRPC. */
  grpcStatus?: string;
  grpcMessage?: string;
  body: Buffer;
}

/**
 * Sends `req` once and throws unless the status is 2xx and, when the request is gRPC
 * (`content-type: application/grpc...`), `grpc-status` is 0.
 */
export async function probe(req: ProbeRequest): Promise<ProbeResponse> {
  const res = req.protocol === "h1" ? await sendH1(req) : await sendH2(req);
  const grpc = (req.headers["content-type"] ?? "").startsWith("application/grpc");
  const ok = res.status >= 200 && res.status < 300 && (!grpc || res.grpcStatus === "0");
  if (!ok) {
    const grpcInfo = grpc ? ` grpc-status ${res.grpcStatus} ${res.grpcMessage ?? ""}` : "";
    throw new Error(
      `probe ${req.method} ${req.url} (${req.protocol}) answered ${res.status}${grpcInfo}: ${res.body.toString("utf8").slice(0, 500)}`,
    );
  }
  return res;
}

function sendH1(req: ProbeRequest): Promise<ProbeResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, ...(req.body ? { "content-length": String(req.body.byteLength) } : {}) };
    const r = h1Request(req.url, { method: req.method, headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    r.on("timeout", () => r.destroy(new Error("probe timed out")));
    r.on("error", reject);
    r.end(req.body);
  });
}

function sendH2(req: ProbeRequest): Promise<ProbeResponse> {
  const url = new URL(req.url);
  const session = connect(url.origin);
  return new Promise<ProbeResponse>((resolve, reject) => {
    session.on("error", reject);
    session.setTimeout(10_000, () => session.destroy(new Error("probe timed out")));
    const stream = session.request({ ":method": req.method, ":path": url.pathname + url.search, ...req.headers });
    let status = 0;
    let grpcStatus: string | undefined;
    let grpcMessage: string | undefined;
    const readGrpc = (h: Record<string, unknown>) => {
      if (h["grpc-status"] !== undefined) grpcStatus = String(h["grpc-status"]);
      if (h["grpc-message"] !== undefined) grpcMessage = decodeURIComponent(String(h["grpc-message"]));
    };
    stream.on("response", (h) => {
      status = Number(h[":status"]);
      readGrpc(h);
    });
    stream.on("trailers", readGrpc);
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => resolve({ status, grpcStatus, grpcMessage, body: Buffer.concat(chunks) }));
    stream.on("error", reject);
    stream.end(req.body);
  }).finally(() => session.close());
}
