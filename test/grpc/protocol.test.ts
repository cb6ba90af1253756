import { connect, type ClientHttp2Session } from "node:http2";
import { gzipSync } from "node:zlib";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadRequestSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { CreateApiRequestSchema, CreateApiResponseSchema } from "../../gen/keyward/v1/apis_pb.js";
import { VerifyKeyRequestSchema, VerifyKeyResponseSchema } from "../../gen/keyward/v1/keys_pb.js";
import { grpcFrame, grpcMessages, grpcStatusOf, rawRequest, type RawAnswer } from "../support/raw-grpc.js";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

const CREATE_API = "/keyward.v1.ApisService/CreateApi";
const VERIFY_KEY = "/keyward.v1.KeysService/VerifyKey";
const MAX = 1024 * 1024;

const createApi = (name: string) => toBinary(CreateApiRequestSchema, create(CreateApiRequestSchema, { name }));

/** Asserts a trailers-only gRPC answer: HTTP 200, status in the one HEADERS frame, no message. */
function expectTrailersOnly(answer: RawAnswer, status: number): string {
  expect(answer.headers[":status"]).toBe(200);
  expect({ status: answer.headers["grpc-status"], trailers: answer.trailers, body: answer.body.length }).toEqual({
    status: String(status), trailers: undefined, body: 0,
  });
  expect(answer.headers["x-request-id"]).toMatch(REQUEST_ID);
  return grpcStatusOf(answer).message;
}

describe("gRPC over HTTP/2, raw frames", () => {
  const harness = useKeyward();
  let session: ClientHttp2Session;
  let auth: { authorization: string };
  let key: string;

  beforeAll(async () => {
    session = connect(harness.keyward.baseUrl);
    auth = { authorization: `Bearer ${harness.keyward.rootKey}` };
    const apiId = await harness.seed.api();
    key = (await harness.seed.key(apiId, { credits: { remaining: 100 } })).key;
  });
  afterAll(() => session?.close());

  const call = (path: string, options: Parameters<typeof rawRequest>[2] = {}) =>
    rawRequest(session, path, { ...options, headers: { "content-type": "application/grpc", ...auth, ...options.headers } });

  it("answers a unary call with headers, one message and grpc-status 0 in trailers", async () => {
    const answer = await call(VERIFY_KEY, { body: grpcFrame(toBinary(VerifyKeyRequestSchema, create(VerifyKeyRequestSchema, { key }))) });
    expect(answer.headers[":status"]).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/grpc");
    expect(answer.headers["grpc-accept-encoding"]).toBe("gzip,identity");
    expect(answer.headers["x-request-id"]).toMatch(REQUEST_ID);
    expect(answer.trailers?.["grpc-status"]).toBe("0");
    const [message, ...rest] = grpcMessages(answer.body);
    expect(rest).toEqual([]);
    expect(fromBinary(VerifyKeyResponseSchema, message)).toMatchObject({ valid: true, code: "VALID", credits: 99n });
  });

  it("serves application/grpc+proto and application/grpc+json", async () => {
    const proto = await call(CREATE_API, { headers: { "content-type": "application/grpc+proto" }, body: grpcFrame(createApi("proto-api")) });
    expect(proto.trailers?.["grpc-status"]).toBe("0");
    expect(fromBinary(CreateApiResponseSchema, grpcMessages(proto.body)[0]).apiId).toMatch(/^api_/);

    const json = await call(CREATE_API, {
      headers: { "content-type": "application/grpc+json" },
      body: grpcFrame(Buffer.from(JSON.stringify({ name: "json-api" }))),
    });
    expect(json.headers["content-type"]).toBe("application/grpc+json");
    expect(json.trailers?.["grpc-status"]).toBe("0");
    expect(JSON.parse(grpcMessages(json.body)[0].toString("utf8"))).toEqual({ apiId: expect.stringMatching(/^api_/) });
  });

  it("reads a gzip request and answers it in gzip", async () => {
    const body = grpcFrame(toBinary(VerifyKeyRequestSchema, create(VerifyKeyRequestSchema, { key })), { compressed: true });
    const answer = await call(VERIFY_KEY, { headers: { "grpc-encoding": "gzip", "grpc-accept-encoding": "gzip" }, body });
    expect(answer.trailers?.["grpc-status"]).toBe("0");
    expect(answer.headers["grpc-encoding"]).toBe("gzip");
    expect(answer.body[0]).toBe(1); // the compressed flag
    expect(fromBinary(VerifyKeyResponseSchema, grpcMessages(answer.body)[0])).toMatchObject({ valid: true, code: "VALID" });
  });

  it("refuses an unknown grpc-encoding with UNIMPLEMENTED, naming what it accepts", async () => {
    const answer = await call(CREATE_API, { headers: { "grpc-encoding": "snappy" }, body: grpcFrame(createApi("never-made")) });
    expect(expectTrailersOnly(answer, 12)).toBe("unsupported grpc-encoding snappy; this server accepts gzip,identity");
    expect(answer.headers["grpc-accept-encoding"]).toBe("gzip,identity");
  });

  it("answers UNIMPLEMENTED, not HTTP 404, for an unknown service or method, percent-encoding grpc-message", async () => {
    expect(expectTrailersOnly(await call("/keyward.v1.NoSuchService/Get", { body: grpcFrame(new Uint8Array()) }), 12))
      .toBe("unknown method /keyward.v1.NoSuchService/Get");
    const answer = await call("/keyward.v1.ApisService/Grow100%", { body: grpcFrame(new Uint8Array()) });
    expect(expectTrailersOnly(answer, 12)).toBe("unknown method /keyward.v1.ApisService/Grow100%");
    expect(answer.headers["grpc-message"]).toBe("unknown%20method%20%2Fkeyward.v1.ApisService%2FGrow100%25");
  });

  it("answers DEADLINE_EXCEEDED when grpc-timeout passes before the call completes, and refuses a malformed timeout", async () => {
    const started = Date.now();
    const late = await call(CREATE_API, { headers: { "grpc-timeout": "50m" }, leaveOpen: true });
    expect(expectTrailersOnly(late, 4)).toBe("the deadline of 50 ms expired");
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    const malformed = await call(CREATE_API, { headers: { "grpc-timeout": "soon" }, body: grpcFrame(createApi("never-made")) });
    expect(expectTrailersOnly(malformed, 3)).toMatch(/invalid grpc timeout value: soon/);
  });

  it("answers INVALID_ARGUMENT to malformed frames without harming other streams of the connection", async () => {
    const message = createApi("framing-api");
    const truncated = Buffer.concat([Buffer.from([0, 0, 0, 0, 100]), Buffer.alloc(10)]);
    const two = Buffer.concat([grpcFrame(message), grpcFrame(message)]);
    const compressedWithoutEncoding = grpcFrame(message, { compressed: true });
    const [a, b, c, d, good] = await Promise.all([
      call(CREATE_API, { body: truncated }),
      call(CREATE_API, { body: two }),
      call(CREATE_API, { body: new Uint8Array() }),
      call(CREATE_API, { body: compressedWithoutEncoding }),
      call(VERIFY_KEY, { body: grpcFrame(toBinary(VerifyKeyRequestSchema, create(VerifyKeyRequestSchema, { key }))) }),
    ]);
    expect(expectTrailersOnly(a, 3)).toBe("the request ends inside a message");
    expect(expectTrailersOnly(b, 3)).toBe("a unary request carries exactly one message");
    expect(expectTrailersOnly(c, 3)).toBe("the request has no message");
    expect(expectTrailersOnly(d, 3)).toBe("a compressed message arrived without grpc-encoding");
    expect(good.trailers?.["grpc-status"]).toBe("0");
    expect(session.destroyed).toBe(false);
    // An undecodable message is the caller's mistake: INVALID_ARGUMENT.
    expect(expectTrailersOnly(await call(CREATE_API, { body: grpcFrame(Buffer.from([0xff, 0xff, 0xff])) }), 3))
      .toMatch(/^The request message is not a valid keyward.v1.CreateApiRequest/);
    const list = await harness.rest.v2("apis.listKeys", {}, harness.keyward.rootKey);
    expect(list.status).not.toBe(500);
  });

  it("answers RESOURCE_EXHAUSTED past 1 MiB, declared, inflated or received", async () => {
    const declared = Buffer.from([0, 0, 0x10, 0, 1]); // 1 MiB + 1 declared, nothing following
    expect(expectTrailersOnly(await call(CREATE_API, { body: declared }), 8)).toBe("message size 1048577 is larger than the limit of 1048576 bytes");
    const bomb = gzipSync(Buffer.alloc(2 * MAX));
    const inflated = Buffer.concat([Buffer.from([1, 0, 0, 0, 0]), bomb]);
    inflated.writeUInt32BE(bomb.length, 1);
    expect(expectTrailersOnly(await call(CREATE_API, { headers: { "grpc-encoding": "gzip" }, body: inflated }), 8))
      .toBe("the inflated message is larger than the limit of 1048576 bytes");
    const huge = await call(CREATE_API, { body: Buffer.alloc(3 * MAX) });
    expect(expectTrailersOnly(huge, 8)).toBe("the request is larger than the limit of 1048576 bytes");
  });

  it("reads a message of almost 1 MiB through HTTP/2 flow control and names the broken field in google.rpc.BadRequest", async () => {
    const answer = await call(CREATE_API, { body: grpcFrame(createApi("a".repeat(MAX - 16))) });
    const message = expectTrailersOnly(answer, 3);
    expect(message).toMatch(/^name: /);
    const status = fromBinary(StatusSchema, Buffer.from(String(answer.headers["grpc-status-details-bin"]), "base64"));
    expect({ code: status.code, message: status.message }).toEqual({ code: 3, message });
    const badRequest = anyUnpack(status.details[0], BadRequestSchema);
    expect(badRequest?.fieldViolations.map((v) => v.field)).toEqual(["name"]);
  });

  it("names nested fields by their proto paths in google.rpc.BadRequest", async () => {
    const body = grpcFrame(Buffer.from(JSON.stringify({ apiId: "", ratelimits: [{ name: "requests", limit: 10, duration: 60_000 }, { name: "", limit: 10, duration: 60_000 }] })));
    const answer = await call("/keyward.v1.KeysService/CreateKey", { headers: { "content-type": "application/grpc+json" }, body });
    expectTrailersOnly(answer, 3);
    const status = fromBinary(StatusSchema, Buffer.from(String(answer.headers["grpc-status-details-bin"]), "base64"));
    const fields = new Set(anyUnpack(status.details[0], BadRequestSchema)?.fieldViolations.map((v) => v.field));
    expect([...fields].sort()).toEqual(["api_id", "ratelimits[1].name"]);
  });

  it("ignores -bin metadata it does not use and answers UNAUTHENTICATED without a root key", async () => {
    const withBin = await call(CREATE_API, { headers: { "x-trace-bin": Buffer.from([0, 1, 2, 255]).toString("base64") }, body: grpcFrame(createApi("bin-api")) });
    expect(withBin.trailers?.["grpc-status"]).toBe("0");
    const anonymous = await rawRequest(session, CREATE_API, { headers: { "content-type": "application/grpc" }, body: grpcFrame(createApi("anon-api")) });
    expect(expectTrailersOnly(anonymous, 16)).toMatch(/Authorization header is missing/);
  });

  it("answers UNIMPLEMENTED to a gRPC call that is not a POST", async () => {
    const answer = await call(CREATE_API, { headers: { ":method": "PUT" }, body: grpcFrame(createApi("put-api")) });
    expect(expectTrailersOnly(answer, 12)).toBe("gRPC calls are POST, not PUT");
  });

  it("leaves grpc.health.v1 to the Connect router, which answers SERVING", async () => {
    const answer = await call("/grpc.health.v1.Health/Check", { body: grpcFrame(new Uint8Array()) });
    expect(answer.trailers?.["grpc-status"]).toBe("0");
    expect([...grpcMessages(answer.body)[0]]).toEqual([0x08, 0x01]); // status: SERVING
  });
});
