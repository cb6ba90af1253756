import { connect, type ClientHttp2Session } from "node:http2";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VerifyKeyRequestSchema, VerifyKeyResponseSchema } from "../../gen/keyward/v1/keys_pb.js";
import { grpcFrame, grpcMessages, grpcStatusOf, rawRequest } from "../support/raw-grpc.js";
import { useKeyward } from "../support/use-keyward.js";

const VERIFY_KEY = "/keyward.v1.KeysService/VerifyKey";
const FIVE_MIB = 5 * 1024 * 1024;

/**
 * Node's HTTP/2 client (grpc-js and connect-node use it) counts the unsent rest of a request the server resets against
 * its own session memory (10 MiB), and past it refuses every later response on the connection (ENHANCE_YOUR_CALM). So
 * these run on Node's client with its defaults, one connection per test, and end with a normal call on it.
 */
describe("messages over the size limit, on one HTTP/2 connection", () => {
  const harness = useKeyward();
  let session: ClientHttp2Session;
  let goaways: number[];
  let key: string;

  beforeAll(async () => {
    key = (await harness.seed.key(await harness.seed.api())).key;
  });
  beforeEach(() => {
    goaways = [];
    session = connect(harness.keyward.baseUrl);
    session.on("goaway", (code) => goaways.push(code));
  });
  afterEach(() => session.close());

  const auth = () => ({ authorization: `Bearer ${harness.keyward.rootKey}` });
  const verifyMessage = () => toBinary(VerifyKeyRequestSchema, create(VerifyKeyRequestSchema, { key }));

  /** A normal VerifyKey over gRPC on the same connection: it must be answered VALID. */
  async function expectConnectionServes(): Promise<void> {
    const answer = await rawRequest(session, VERIFY_KEY, { headers: { "content-type": "application/grpc", ...auth() }, body: grpcFrame(verifyMessage()) });
    expect(answer.trailers?.["grpc-status"]).toBe("0");
    expect(fromBinary(VerifyKeyResponseSchema, grpcMessages(answer.body)[0])).toMatchObject({ valid: true, code: "VALID" });
    expect({ goaways, destroyed: session.destroyed }).toEqual({ goaways: [], destroyed: false });
  }

  it("gRPC: four 5 MiB messages each end their own stream with RESOURCE_EXHAUSTED, and the connection then serves", async () => {
    for (let i = 0; i < 4; i++) {
      const answer = await rawRequest(session, VERIFY_KEY, { headers: { "content-type": "application/grpc", ...auth() }, body: grpcFrame(Buffer.alloc(FIVE_MIB)) });
      expect({ ...grpcStatusOf(answer), trailersOnly: answer.trailers === undefined, body: answer.body.length }).toEqual({
        status: 8, message: "the request is larger than the limit of 1048576 bytes", trailersOnly: true, body: 0,
      });
    }
    await expectConnectionServes();
  });

  it("gRPC-Web: four 5 MiB messages are each answered RESOURCE_EXHAUSTED, and the connection then serves", async () => {
    for (let i = 0; i < 4; i++) {
      const answer = await rawRequest(session, VERIFY_KEY, {
        headers: { "content-type": "application/grpc-web+proto", ...auth() }, body: grpcFrame(Buffer.alloc(FIVE_MIB)),
      });
      expect(answer.headers[":status"]).toBe(200);
      expect(answer.body.toString("latin1")).toMatch(/grpc-status: 8\r\n/);
    }
    await expectConnectionServes();
  });

  it("Connect: four 5 MiB bodies, plain and gzip, are each answered resource_exhausted, and the connection then serves", async () => {
    for (const encoding of ["identity", "gzip", "identity", "gzip"]) {
      const answer = await rawRequest(session, VERIFY_KEY, {
        headers: { "content-type": "application/proto", "content-encoding": encoding, ...auth() }, body: Buffer.alloc(FIVE_MIB),
      });
      expect({ status: answer.headers[":status"], code: JSON.parse(answer.body.toString()).code }).toEqual({ status: 429, code: "resource_exhausted" });
    }
    await expectConnectionServes();
  });

  it("REST over h2c: four 5 MiB bodies are each answered 413, and the connection then serves", async () => {
    for (let i = 0; i < 4; i++) {
      const answer = await rawRequest(session, "/v2/keys.verifyKey", {
        headers: { "content-type": "application/json", ...auth() }, body: Buffer.alloc(FIVE_MIB, 0x20),
      });
      expect({ status: answer.headers[":status"], title: JSON.parse(answer.body.toString()).error.title }).toEqual({ status: 413, title: "Payload Too Large" });
    }
    const ok = await rawRequest(session, "/v2/keys.verifyKey", { headers: { "content-type": "application/json", ...auth() }, body: Buffer.from(JSON.stringify({ key })) });
    expect({ status: ok.headers[":status"], valid: JSON.parse(ok.body.toString()).data.valid }).toEqual({ status: 200, valid: true });
    await expectConnectionServes();
  });
});
