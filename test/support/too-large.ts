import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { expect, it } from "vitest";
import { expectFailure, expectSuccess } from "./expect-outcome.js";
import { onMongoDocuments } from "./keyward.js";
import { callOperation, OPERATIONS, RPC_VIAS, type OperationName, type RpcVia } from "./operations.js";
import { bearerOf, expectRefusal } from "./refusal.js";
import type { Harness } from "./use-keyward.js";

/** The documented request-size limit: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface TooLargeOptions {
  /** A request that succeeds with the bootstrap key. */
  validInput: (harness: Harness) => Promise<Record<string, unknown>>;
  /** A string field to inflate past the limit. */
  field: string;
}

/** `input` as JSON padded with trailing whitespace to exactly `bytes` bytes: still the same valid request. */
// Each RPC path words the refusal its own way; all name the limit. gRPC-Web's binary body is read by
// transport/connect/adapter-check.ts, in gRPC's words.
const OVER_LIMIT = {
  connect: "The request body exceeds 1048576 bytes.",
  grpc: /is larger than the limit of 1048576 bytes/,
  grpcWeb: /is larger than the limit of 1048576 bytes/,
} as const;

export function paddedJson(input: unknown, bytes: number): string {
  const json = JSON.stringify(input);
  if (Buffer.byteLength(json) > bytes) throw new Error("input already larger than the padding target");
  return json + " ".repeat(bytes - Buffer.byteLength(json));
}

/**
 * The RPC clients for oversized messages. Connect and gRPC-Web go through fetch (connect-web): under Deno, the
 * node:http client behind connect-node reports the server's early error as a reset while it is still uploading
 * (a fetch client reads the same response fine). gRPC needs HTTP/2, so it keeps connect-node's transport.
 */
function oversizeTransports(baseUrl: string): Partial<Record<RpcVia, Transport>> {
  return { connect: createConnectTransport({ baseUrl }), grpcWeb: createGrpcWebTransport({ baseUrl }) };
}

/**
 * Deno's node:http server cuts a chunked response (gRPC-Web's) short while megabytes of the request are still
 * unread, so there only the just-over-the-limit gRPC-Web message is checked (reported; not Keyward's logic).
 */
const IS_DENO = "Deno" in globalThis;

/**
 * The MongoDB pass (KEYWARD_TEST_DOCUMENTS=mongo) skips the refusals: the transport refuses an oversized body before
 * any store is read or written, so they cannot differ by store, and they cost a fifth of that pass. The 1 MiB body
 * that is served (and stored) still runs there.
 */
const REFUSALS_RUN = !onMongoDocuments();

/**
 * Registers the 413 cases for one operation: over 1 MiB with or without Content-Length on REST (v2 and a v1
 * JSON binding), over 1 MiB on each RPC protocol, and exactly 1 MiB still served. Nothing changes on refusal,
 * and the same client is served normally right after.
 */
export function tooLargeMatrix(harness: Harness, name: OperationName, options: TooLargeOptions): void {
  const op = OPERATIONS[name];
  const restVias = op.v1?.verb === "POST" ? (["v2", "v1"] as const) : (["v2"] as const);
  const inflate = async (length: number) => ({ ...(await options.validInput(harness)), [options.field]: "x".repeat(length) });
  const authorization = () => bearerOf(harness.keyward.rootKey);

  it.runIf(REFUSALS_RUN)(`answers 413 to bodies of 1 MiB + 1 byte and of 16 MiB on ${restVias.join(", ")}, changing nothing`, async () => {
    for (const via of restVias) {
      for (const total of [MAX_BODY_BYTES + 1, 16 * MAX_BODY_BYTES]) {
        const body = paddedJson(await inflate(0), total);
        await expectRefusal(harness, {
          via, op: name, input: body, authorization: authorization(), kind: "payload_too_large", detail: "exceeds 1048576 bytes",
        });
        // The refused request left the connection usable: the next request is served.
        const input = await options.validInput(harness);
        expectSuccess(await callOperation(harness.keyward.baseUrl, via, op, input, { authorization: authorization() }));
      }
    }
  });

  it.runIf(REFUSALS_RUN)("answers 413 to a body over 1 MiB streamed without Content-Length", async () => {
    const bytes = Buffer.from(JSON.stringify(await inflate(MAX_BODY_BYTES)));
    harness.writes.clear();
    const before = await harness.snapshot();
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
    const response = await fetch(`${harness.keyward.baseUrl}/v2/${name}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: authorization() },
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    const body = await response.json();
    expectFailure({ via: "v2", rest: { status: response.status, body, headers: response.headers } }, "payload_too_large");
    expect(harness.writes.writes).toEqual([]);
    expect(await harness.snapshot()).toEqual(before);
  });

  it("serves a body of exactly 1 MiB", async () => {
    for (const via of restVias) {
      const body = paddedJson(await options.validInput(harness), MAX_BODY_BYTES);
      expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
      expectSuccess(await callOperation(harness.keyward.baseUrl, via, op, body, { authorization: authorization() }));
    }
  });

  it.runIf(REFUSALS_RUN)("answers ResourceExhausted to messages over 1 MiB over Connect, gRPC and gRPC-Web, changing nothing", async () => {
    const transports = oversizeTransports(harness.keyward.baseUrl);
    for (const via of RPC_VIAS) {
      for (const length of via === "grpcWeb" && IS_DENO ? [MAX_BODY_BYTES] : [MAX_BODY_BYTES, 4 * MAX_BODY_BYTES]) {
        await expectRefusal(harness, {
          via, op: name, input: await inflate(length), authorization: authorization(), kind: "payload_too_large",
          detail: OVER_LIMIT[via], transport: transports[via],
        });
      }
      const input = await options.validInput(harness);
      expectSuccess(await callOperation(harness.keyward.baseUrl, via, op, input, { authorization: authorization() }));
    }
  });
}
