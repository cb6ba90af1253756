import { connect, type ClientHttp2Session } from "node:http2";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { gzipSync } from "node:zlib";
import { create, fromBinary, toBinary, type DescMethodUnary, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { codeFromString } from "@connectrpc/connect/protocol-connect";
import { trailerParse } from "@connectrpc/connect/protocol-grpc-web";
import { COUNTER_WRITES } from "../../../src/services/gated-counters.js";
import type { CounterStore } from "../../../src/store/ports/counters.js";
import type { Operation } from "../../../src/services/operation.js";
import { grpcFrame, grpcMessages, grpcStatusOf, rawRequest } from "../../support/raw-grpc.js";
import { recordSecretsIn } from "../../support/secret-record.js";
import { useKeyward } from "../../support/use-keyward.js";

/**
 * The paths a deadline takes: gRPC and lean Connect are Keyward's own handlers (each with its early-answer timer);
 * gRPC-Web and gzipped Connect go through connect-node (transport/connect/adapter.ts), which answers with the handler's result.
 */
export type Wire = "grpc" | "connect" | "grpc-web" | "connect-gzip";
export const WIRES: Wire[] = ["grpc", "connect", "grpc-web", "connect-gzip"];

/** A deadline as each protocol writes it: `expired` is already past on arrival, `generous` is 30 s. */
export type Deadline = "expired" | "generous" | { ms: number };

/** The answer of one call: its status code (0 = OK) and, on OK, the message. */
export interface Answer<O> {
  code: Code | 0;
  message?: O;
  detail?: string;
}

function grpcTimeout(deadline: Deadline): string {
  if (deadline === "expired") return "1n";
  return deadline === "generous" ? "30S" : `${deadline.ms}m`;
}

function connectTimeout(deadline: Deadline): string {
  if (deadline === "expired") return "0";
  return deadline === "generous" ? "30000" : String(deadline.ms);
}

/**
 * One unary call with a deadline header, spelled out byte by byte (a client library would refuse to send a call whose
 * deadline has passed). `session` carries gRPC; the others go over HTTP/1.1 to `baseUrl`.
 */
export async function callWithDeadline<M extends DescMethodUnary>(
  target: { baseUrl: string; session: ClientHttp2Session; rootKey: string },
  wire: Wire,
  method: M,
  input: MessageInitShape<M["input"]>,
  deadline: Deadline,
): Promise<Answer<MessageShape<M["output"]>>> {
  const path = `/${method.parent.typeName}/${method.name}`;
  const bytes = toBinary(method.input, create(method.input, input as never));
  const authorization = `Bearer ${target.rootKey}`;
  if (wire === "grpc") {
    const answer = await rawRequest(target.session, path, {
      headers: { "content-type": "application/grpc", authorization, "grpc-timeout": grpcTimeout(deadline) },
      body: grpcFrame(bytes),
    });
    const { status, message } = grpcStatusOf(answer);
    return status === 0 ? ok(method, grpcMessages(answer.body)[0]) : { code: status, detail: message };
  }
  if (wire === "grpc-web") {
    const res = await fetch(target.baseUrl + path, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto", authorization, "grpc-timeout": grpcTimeout(deadline) },
      body: new Uint8Array(grpcFrame(bytes)),
    });
    const body = Buffer.from(await res.arrayBuffer());
    let status = res.headers.get("grpc-status");
    let detail = res.headers.get("grpc-message");
    let message: Uint8Array | undefined;
    for (let at = 0; at < body.length; ) {
      const length = body.readUInt32BE(at + 1);
      const payload = body.subarray(at + 5, at + 5 + length);
      if (body[at] & 0x80) {
        const trailer = trailerParse(payload);
        status = trailer.get("grpc-status");
        detail = trailer.get("grpc-message");
      } else message = payload;
      at += 5 + length;
    }
    if (status === "0" && message) return ok(method, message);
    return { code: Number(status), detail: decodeURIComponent(detail ?? "") };
  }
  const gzip = wire === "connect-gzip";
  const res = await fetch(target.baseUrl + path, {
    method: "POST",
    headers: {
      "content-type": "application/proto", "connect-protocol-version": "1", authorization, "connect-timeout-ms": connectTimeout(deadline),
      ...(gzip && { "content-encoding": "gzip" }),
    },
    body: gzip ? new Uint8Array(gzipSync(bytes)) : bytes,
  });
  const body = new Uint8Array(await res.arrayBuffer());
  if (res.status === 200) return ok(method, body);
  const error = JSON.parse(Buffer.from(body).toString("utf8")) as { code: string; message?: string };
  return { code: codeFromString(error.code) ?? Code.Unknown, detail: error.message };
}

function ok<M extends DescMethodUnary>(method: M, bytes: Uint8Array): Answer<MessageShape<M["output"]>> {
  const message = fromBinary(method.output, bytes) as MessageShape<M["output"]>;
  recordSecretsIn(message);
  return { code: 0, message };
}

/**
 * Every handler the pipeline starts, by the promise it returns: a test can tell "never started" from "started and
 * refused", and wait for calls the transport has already answered to finish their work.
 */
export function watchHandlers(operations: Operation[]) {
  const started: { rpc: string; result: Promise<unknown> }[] = [];
  for (const operation of operations) {
    const handler = operation.handler;
    operation.handler = (request, context) => {
      const result = handler(request, context);
      started.push({ rpc: operation.method.name, result });
      return result;
    };
  }
  return {
    started,
    /** Resolves once every handler started so far has settled; returns their outcomes. */
    settled: () => Promise.allSettled(started.map((s) => s.result)),
    clear: () => void started.splice(0),
  };
}

/** Records the name of every counter write `counters` performs (passed through unchanged). */
export function watchCounterWrites(counters: CounterStore): string[] {
  const writes: string[] = [];
  const methods = counters as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of COUNTER_WRITES) {
    const write = methods[method].bind(counters);
    methods[method] = (...args) => {
      writes.push(method);
      return write(...args);
    };
  }
  return writes;
}

/**
 * A server for a deadline suite: one HTTP/2 session to it, the handlers the pipeline starts and the counter writes it
 * makes (both forgotten before each test, with the document writes), and the target callWithDeadline sends to.
 */
export function useDeadlineServer() {
  const harness = useKeyward();
  const calls = {} as { session: ClientHttp2Session; handlers: ReturnType<typeof watchHandlers>; counterWrites: string[] };
  beforeAll(() => {
    calls.session = connect(harness.keyward.baseUrl);
    calls.handlers = watchHandlers(harness.keyward.operations);
    calls.counterWrites = watchCounterWrites(harness.keyward.stores.counters);
  });
  afterAll(() => calls.session?.close());
  const forgetCalls = () => {
    calls.handlers.clear();
    harness.writes.clear();
    calls.counterWrites.splice(0);
  };
  beforeEach(forgetCalls);
  const target = () => ({ baseUrl: harness.keyward.baseUrl, session: calls.session, rootKey: harness.keyward.rootKey });
  return { harness, calls, target, forgetCalls };
}
