import { connect, type ClientHttp2Session } from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VerifyKeyRequestSchema } from "../../gen/keyward/v1/keys_pb.js";
import { createLogger } from "../../src/observability/logger.js";
import { startKeyward, type RunningKeyward } from "../support/keyward.js";
import { deltas, scrape, series } from "../support/prometheus.js";
import { grpcFrame, grpcStatusOf, rawRequest } from "../support/raw-grpc.js";

const VERIFY_KEY = "/keyward.v1.KeysService/VerifyKey";
const message = toBinary(VerifyKeyRequestSchema, create(VerifyKeyRequestSchema, { key: "kw_never_looked_up" }));
const frame = grpcFrame(message);
const withFlags = (flags: number) => Buffer.concat([Buffer.from([flags]), frame.subarray(1)]);

/** Bodies a unary gRPC request must not be, with the status and message each is answered. */
const CASES: Array<{ name: string; body: Buffer; headers?: Record<string, string>; status: number; message: string }> = [
  { name: "empty body", body: Buffer.alloc(0), status: 3, message: "the request has no message" },
  { name: "truncated header", body: frame.subarray(0, 3), status: 3, message: "the request ends inside a frame header" },
  { name: "truncated message", body: frame.subarray(0, frame.length - 2), status: 3, message: "the request ends inside a message" },
  { name: "extra bytes after the message", body: Buffer.concat([frame, Buffer.from([7])]), status: 3, message: "a unary request carries exactly one message" },
  { name: "two messages", body: Buffer.concat([frame, frame]), status: 3, message: "a unary request carries exactly one message" },
  { name: "reserved flag bits", body: withFlags(0x02), status: 3, message: "reserved frame flags set (0x2)" },
  { name: "compressed flag without grpc-encoding", body: withFlags(0x01), status: 3, message: "a compressed message arrived without grpc-encoding" },
  { name: "compressed flag on bytes that are not gzip", body: withFlags(0x01), headers: { "grpc-encoding": "gzip" }, status: 3, message: "the message is not valid gzip" },
  { name: "declared larger than 1 MiB", body: Buffer.from([0, 0, 0x10, 0, 1]), status: 8, message: "message size 1048577 is larger than the limit of 1048576 bytes" },
];

describe("gRPC framing: a malformed frame is the client's mistake", () => {
  const lines: Array<{ level: number; msg: string; status?: string; err?: unknown }> = [];
  let keyward: RunningKeyward;
  let session: ClientHttp2Session;

  beforeAll(async () => {
    const { logger } = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    keyward = await startKeyward({ logger });
    session = connect(keyward.baseUrl);
  });
  afterAll(async () => {
    session?.close();
    await keyward?.stop();
  });

  it("answers each case INVALID_ARGUMENT (RESOURCE_EXHAUSTED when too large) before authentication, logged at info and counted as the client's", async () => {
    const before = await scrape(keyward.baseUrl);
    lines.length = 0;
    // No root key: an answer about the frame, not UNAUTHENTICATED, shows the frame is judged before any key is looked up.
    const answers = await Promise.all(CASES.map((c) =>
      rawRequest(session, VERIFY_KEY, { headers: { "content-type": "application/grpc", ...c.headers }, body: c.body })));
    expect(answers.map((answer, i) => ({ name: CASES[i].name, ...grpcStatusOf(answer) })))
      .toEqual(CASES.map((c) => ({ name: c.name, status: c.status, message: c.message })));

    const after = await scrape(keyward.baseUrl);
    const counted = (status: string) => series("keyward_requests_total", { route: "KeysService.VerifyKey", status, transport: "grpc" });
    expect(deltas(before, after, "keyward_requests_total")).toEqual({ [counted("invalid_argument")]: 8, [counted("resource_exhausted")]: 1 });
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
    expect(lines.filter((line) => line.msg === "request").map((line) => line.status).sort())
      .toEqual([...new Array(8).fill("invalid_argument"), "resource_exhausted"]);
    expect(session.destroyed).toBe(false);
  });
});
