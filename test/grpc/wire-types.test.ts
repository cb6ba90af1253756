import { connect, type ClientHttp2Session } from "node:http2";
import { gzipSync } from "node:zlib";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadRequestSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { VerifyKeyRequestSchema, VerifyKeyResponseSchema } from "../../gen/keyward/v1/keys_pb.js";
import { grpcFrame, grpcMessages, grpcStatusOf, rawRequest } from "../support/raw-grpc.js";
import { useKeyward } from "../support/use-keyward.js";

const VERIFY_KEY = "/keyward.v1.KeysService/VerifyKey";
const MISMATCH = "field credits.cost (1) has wire type LengthDelimited, expected Varint";

/** VerifyKeyRequest{key, credits: CreditsCost{cost}} with `cost` written as `costBytes`, tag included. */
function verifyRequest(key: string, costBytes: number[]): Buffer {
  const keyField = Buffer.concat([Buffer.from([0x0a, Buffer.byteLength(key)]), Buffer.from(key)]);
  return Buffer.concat([keyField, Buffer.from([0x22, costBytes.length, ...costBytes])]);
}

describe("binary request messages: wire types", () => {
  const harness = useKeyward();
  let session: ClientHttp2Session;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    session = connect(harness.keyward.baseUrl);
    const apiId = await harness.seed.api();
    ({ key, keyId } = await harness.seed.key(apiId, { credits: { remaining: 1000 } }));
  });
  afterAll(() => session?.close());

  const remaining = async () =>
    (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data.credits.remaining as number;
  const auth = () => ({ authorization: `Bearer ${harness.keyward.rootKey}` });
  const grpc = (body: Buffer) => rawRequest(session, VERIFY_KEY, { headers: { "content-type": "application/grpc", ...auth() }, body: grpcFrame(body) });

  it("gRPC: a cost sent as LengthDelimited (0x0a 0x64) is INVALID_ARGUMENT naming credits.cost, and no credit moves", async () => {
    const answer = await grpc(verifyRequest(key, [0x0a, 0x64]));
    expect(answer.headers["grpc-status"]).toBe("3");
    expect(grpcStatusOf(answer).message).toBe(`The request message is not a valid keyward.v1.VerifyKeyRequest: ${MISMATCH}`);
    const status = fromBinary(StatusSchema, Buffer.from(String(answer.headers["grpc-status-details-bin"]), "base64"));
    expect(anyUnpack(status.details[0], BadRequestSchema)?.fieldViolations.map((v) => ({ field: v.field, description: v.description })))
      .toEqual([{ field: "credits.cost", description: "has wire type LengthDelimited, expected Varint" }]);
    expect(await remaining()).toBe(1000);
  });

  it("Connect application/proto: the same message is 400 invalid_argument, and no credit moves", async () => {
    const response = await fetch(`${harness.keyward.baseUrl}${VERIFY_KEY}`, {
      method: "POST", headers: { "content-type": "application/proto", ...auth() }, body: new Uint8Array(verifyRequest(key, [0x0a, 0x64])),
    });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: { code: "invalid_argument", message: `The request message is not a valid keyward.v1.VerifyKeyRequest: ${MISMATCH}`, details: expect.any(Array) },
    });
    expect(await remaining()).toBe(1000);
  });

  it("gRPC-Web and gzipped Connect (served by connect-node): the same message is INVALID_ARGUMENT, and no credit moves", async () => {
    const message = verifyRequest(key, [0x0a, 0x64]);
    const web = await fetch(`${harness.keyward.baseUrl}${VERIFY_KEY}`, {
      method: "POST", headers: { "content-type": "application/grpc-web+proto", ...auth() }, body: new Uint8Array(grpcFrame(message)),
    });
    const trailer = Buffer.from(await web.arrayBuffer());
    expect({ status: web.status, flag: trailer[0] }).toEqual({ status: 200, flag: 0x80 });
    expect(trailer.subarray(5).toString()).toContain("grpc-status: 3");
    expect(decodeURIComponent(trailer.subarray(5).toString())).toContain(MISMATCH);
    const gzipped = await fetch(`${harness.keyward.baseUrl}${VERIFY_KEY}`, {
      method: "POST", headers: { "content-type": "application/proto", "content-encoding": "gzip", ...auth() }, body: new Uint8Array(gzipSync(message)),
    });
    expect({ status: gzipped.status, body: await gzipped.json() }).toMatchObject({
      status: 400, body: { code: "invalid_argument", message: `The request message is not a valid keyward.v1.VerifyKeyRequest: ${MISMATCH}` },
    });
    expect(await remaining()).toBe(1000);
  });

  it("a gzipped Connect message that does not parse is 400 invalid_argument, not connect-node's 500", async () => {
    const response = await fetch(`${harness.keyward.baseUrl}${VERIFY_KEY}`, {
      method: "POST", headers: { "content-type": "application/proto", "content-encoding": "gzip", ...auth() },
      body: new Uint8Array(gzipSync(Buffer.from([0x0a, 0x05, 0xff, 0xff]))),
    });
    expect({ status: response.status, body: await response.json() }).toMatchObject({
      status: 400, body: { code: "invalid_argument", message: expect.stringContaining("premature EOF") },
    });
  });

  it("the cost as a varint, with an unknown field of any wire type beside it, is read and charged", async () => {
    const unknown = [0xfa, 0x06, 0x02, 0x01, 0x02, 0xf8, 0x06, 0x07]; // field 111 LengthDelimited, field 111 Varint
    const answer = await grpc(Buffer.concat([verifyRequest(key, [0x08, 0x05]), Buffer.from(unknown)]));
    expect(answer.trailers?.["grpc-status"]).toBe("0");
    expect(fromBinary(VerifyKeyResponseSchema, grpcMessages(answer.body)[0])).toMatchObject({ valid: true, code: "VALID", credits: 995n });
    expect(await remaining()).toBe(995);
  });

  it("a well-formed request encoded by protobuf-es passes the check unchanged", async () => {
    const body = toBinary(VerifyKeyRequestSchema, create(VerifyKeyRequestSchema, { key, tags: ["a", "b"], credits: { cost: 2n }, ratelimits: [] }));
    const answer = await grpc(Buffer.from(body));
    expect(fromBinary(VerifyKeyResponseSchema, grpcMessages(answer.body)[0])).toMatchObject({ valid: true, credits: 993n });
  });
});
