import { connect, type ClientHttp2Session } from "node:http2";
import { gzipSync } from "node:zlib";
import { fromJson, toBinary, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Operation } from "../../src/services/operation.js";
import { hostileBody, plausibleJson } from "../support/hostile-json.js";
import { grpcFrame, grpcStatusOf, rawRequest } from "../support/raw-grpc.js";
import { expectClientAnswer, expectNoErrorLines, printSummary, startFuzzServer, type FuzzServer } from "./fuzz-server.js";

const RUNS_PER_OPERATION = Number(process.env.KEYWARD_FUZZ_RUNS ?? 20);
/** gRPC codes that mean the server failed: UNKNOWN, INTERNAL, UNAVAILABLE, DATA_LOSS. */
const SERVER_FAILURE_CODES = new Set([2, 13, 14, 15]);

/**
 * Hostile RPC input on every operation: Connect JSON bodies, Connect and gRPC-Web binary bodies, and gRPC frames
 * (valid messages with bytes flipped, cut or added, fields of the wrong wire type, broken frame headers), all with
 * the all-permission root key. No answer is a server failure, a refused call writes nothing, and nothing is logged
 * at error level.
 */
describe("RPC fuzz: hostile messages and frames on every operation", () => {
  let server: FuzzServer;
  let session: ClientHttp2Session;
  let operations: Operation[];
  beforeAll(async () => {
    server = await startFuzzServer();
    session = connect(server.keyward.baseUrl);
    operations = server.keyward.operations;
  });
  afterAll(async () => {
    session?.close();
    if (server) printSummary("RPC fuzz", server);
    await server?.keyward.stop();
  });

  it("Connect JSON: hostile bodies answer 4xx and write nothing", async () => {
    for (const operation of operations) {
      await fc.assert(fc.asyncProperty(hostileBody(operation.method.input, server.ids), async (sent) => {
        server.writes.clear();
        const response = await post(server, pathOf(operation), "application/json", sent);
        await response.arrayBuffer();
        expectClientAnswer(server, `connect-json ${pathOf(operation)}`, { ok: response.status === 200, serverError: response.status >= 500, what: sent.slice(0, 200) });
      }), { numRuns: RUNS_PER_OPERATION });
    }
    expectNoErrorLines(server);
  }, 240_000);

  it("Connect (plain and gzipped) and gRPC-Web binary: mangled messages answer errors of the client and write nothing", async () => {
    const wires = fc.constantFrom("connect-proto", "connect-gzip", "grpc-web");
    for (const operation of operations) {
      await fc.assert(fc.asyncProperty(mangledMessage(operation.method.input, server.ids), wires, async (bytes, wire) => {
        server.writes.clear();
        const path = pathOf(operation);
        const response = wire === "grpc-web" ? await post(server, path, "application/grpc-web+proto", grpcFrame(bytes))
          : wire === "connect-gzip" ? await post(server, path, "application/proto", gzipSync(bytes), { "content-encoding": "gzip" })
            : await post(server, path, "application/proto", bytes);
        const body = Buffer.from(await response.arrayBuffer());
        const code = wire === "grpc-web" ? grpcWebStatus(response, body) : response.status === 200 ? 0 : -1;
        expectClientAnswer(server, `${wire} ${path}`, {
          ok: code === 0, serverError: response.status >= 500 || SERVER_FAILURE_CODES.has(code), what: Buffer.from(bytes).toString("hex"),
        });
      }), { numRuns: RUNS_PER_OPERATION });
    }
    expectNoErrorLines(server);
  }, 240_000);

  it("gRPC: mangled messages and broken frames answer errors of the client and write nothing", async () => {
    for (const operation of operations) {
      const body = fc.oneof(
        { weight: 4, arbitrary: mangledMessage(operation.method.input, server.ids).map((bytes) => grpcFrame(bytes)) },
        { weight: 1, arbitrary: brokenFrame() },
      );
      await fc.assert(fc.asyncProperty(body, async (frame) => {
        server.writes.clear();
        const answer = await rawRequest(session, pathOf(operation), {
          headers: { "content-type": "application/grpc", authorization: `Bearer ${server.keyward.rootKey}` }, body: frame,
        });
        const { status } = grpcStatusOf(answer);
        expectClientAnswer(server, `grpc ${pathOf(operation)}`, {
          ok: status === 0, serverError: SERVER_FAILURE_CODES.has(status) || Number(answer.headers[":status"]) >= 500, what: frame.toString("hex"),
        });
      }), { numRuns: RUNS_PER_OPERATION });
    }
    expectNoErrorLines(server);
  }, 240_000);
});

function pathOf(operation: Operation): string {
  return `/${operation.method.parent.typeName}/${operation.method.name}`;
}

function post(server: FuzzServer, path: string, contentType: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.keyward.baseUrl}${path}`, {
    method: "POST", headers: { "content-type": contentType, authorization: `Bearer ${server.keyward.rootKey}`, ...headers }, body: typeof body === "string" ? body : Buffer.from(body),
  });
}

/** gRPC-Web carries its status in a trailer frame (flag 0x80) or, for an early failure, in the headers. */
function grpcWebStatus(response: Response, body: Buffer): number {
  let trailer = `grpc-status: ${response.headers.get("grpc-status") ?? -1}`;
  for (let at = 0; at + 5 <= body.length; at += 5 + body.readUInt32BE(at + 1)) {
    if (body[at] & 0x80) trailer = body.subarray(at + 5, at + 5 + body.readUInt32BE(at + 1)).toString();
  }
  return Number(/grpc-status:\s*(-?\d+)/.exec(trailer)?.[1] ?? -1);
}

/**
 * A plausible message of `schema` in binary, then mangled: bytes flipped, cut short, junk appended, or a field of
 * the message written again with another wire type.
 */
function mangledMessage(schema: DescMessage, ids: string[]): fc.Arbitrary<Uint8Array> {
  const valid = plausibleJson(schema, ids).map((json) => {
    try {
      return toBinary(schema, fromJson(schema, json as never, { ignoreUnknownFields: true }));
    } catch {
      return new Uint8Array(0);
    }
  });
  const numbers = [...schema.fields.map((f) => f.number), 99];
  return fc.tuple(valid, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 12 }), fc.constantFrom(...numbers), fc.integer({ min: 0, max: 7 }), fc.nat(3))
    .map(([bytes, at, junk, field, wireType, how]) => {
      const out = Buffer.from(bytes);
      switch (how) {
        case 0: // flip bytes
          for (let i = 0; i < junk.length && out.length > 0; i++) out[(at + i * 7) % out.length] ^= junk[i];
          return out;
        case 1: // cut short
          return out.subarray(0, out.length > 0 ? at % out.length : 0);
        case 2: // junk after the message
          return Buffer.concat([out, junk]);
        default: // the field again, with a wire type of its choosing, and a payload
          return Buffer.concat([out, Buffer.from([(field << 3) | wireType]), junk]);
      }
    });
}

/** Frames a unary gRPC request must not be: empty, cut, overlong, reserved flags, compressed without an encoding, two. */
function brokenFrame(): fc.Arbitrary<Buffer> {
  const message = Buffer.from([0x0a, 0x03, 0x61, 0x62, 0x63]);
  return fc.oneof(
    fc.constantFrom(
      Buffer.alloc(0), Buffer.from([0, 0, 0]), Buffer.from([0, 0, 0, 0, 9, 1, 2]), Buffer.concat([grpcFrame(message), Buffer.from([7])]),
      Buffer.concat([Buffer.from([0x02]), grpcFrame(message).subarray(1)]), Buffer.concat([Buffer.from([0x01]), grpcFrame(message).subarray(1)]),
      Buffer.concat([grpcFrame(message), grpcFrame(message)]), Buffer.from([0, 0xff, 0xff, 0xff, 0xff]),
    ),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  );
}
