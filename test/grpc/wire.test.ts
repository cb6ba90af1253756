import { gzipSync } from "node:zlib";
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  failureTrailers, frame, grpcCodecOf, grpcTimeoutOf, responseEncodingOf, unframeUnary, encodeGrpcMessage,
} from "../../src/transport/grpc/wire.js";

const MAX = 64;
const message = Buffer.from("hello, frame");
const header = (flags: number, length: number) => Buffer.from([flags, length >>> 24, (length >>> 16) & 255, (length >>> 8) & 255, length & 255]);

describe("gRPC wire: framing", () => {
  it("frames a message as flag 0, 4-byte big-endian length, message; and reads it back", () => {
    const framed = frame(message, "identity");
    expect([...framed.subarray(0, 5)]).toEqual([0, 0, 0, 0, message.length]);
    expect(framed.subarray(5).toString()).toBe("hello, frame");
    expect(unframeUnary(framed, { encoding: "identity", maxBytes: MAX })).toEqual({ ok: true, message: message });
  });

  it("gzip frames carry flag 1 and the compressed length, and inflate back to the message", () => {
    const framed = frame(message, "gzip");
    expect(framed[0]).toBe(1);
    expect(framed.readUInt32BE(1)).toBe(framed.length - 5);
    const read = unframeUnary(framed, { encoding: "gzip", maxBytes: MAX });
    expect(read.ok && Buffer.from(read.message).toString()).toBe("hello, frame");
  });

  it("an empty message is a frame of five bytes", () => {
    const framed = frame(new Uint8Array(0), "identity");
    expect([...framed]).toEqual([0, 0, 0, 0, 0]);
    expect(unframeUnary(framed, { encoding: "identity", maxBytes: MAX })).toEqual({ ok: true, message: Buffer.alloc(0) });
  });

  const framed = frame(message, "identity");
  const bad: Array<[string, Buffer, Partial<{ encoding: "identity" | "gzip" }>, string, string]> = [
    ["no bytes", Buffer.alloc(0), {}, "malformed", "the request has no message"],
    ["a header cut short", framed.subarray(0, 4), {}, "malformed", "the request ends inside a frame header"],
    ["a message cut short", framed.subarray(0, framed.length - 1), {}, "malformed", "the request ends inside a message"],
    ["bytes after the message", Buffer.concat([framed, Buffer.from([0])]), {}, "malformed", "a unary request carries exactly one message"],
    ["two frames", Buffer.concat([framed, framed]), {}, "malformed", "a unary request carries exactly one message"],
    ["reserved flag bits", Buffer.concat([header(0x80, message.length), message]), {}, "malformed", "reserved frame flags set (0x80)"],
    ["the compressed flag without grpc-encoding", Buffer.concat([header(1, message.length), message]), {}, "malformed", "a compressed message arrived without grpc-encoding"],
    ["the compressed flag on bytes that are not gzip", Buffer.concat([header(1, message.length), message]), { encoding: "gzip" }, "malformed", "the message is not valid gzip"],
    ["a declared length past the limit", header(0, MAX + 1), {}, "too_large", `message size ${MAX + 1} is larger than the limit of ${MAX} bytes`],
  ];
  for (const [name, body, options, reason, detail] of bad) {
    it(`refuses ${name} (${reason})`, () => {
      expect(unframeUnary(body, { encoding: "identity", maxBytes: MAX, ...options })).toEqual({ ok: false, reason, detail });
    });
  }

  it("stops inflating at the limit: a small gzip bomb is too large, not a memory spike", () => {
    const bomb = gzipSync(Buffer.alloc(10 * MAX));
    expect(bomb.length).toBeLessThan(MAX);
    const body = Buffer.concat([header(1, bomb.length), bomb]);
    expect(unframeUnary(body, { encoding: "gzip", maxBytes: MAX })).toEqual({
      ok: false, reason: "too_large", detail: `the inflated message is larger than the limit of ${MAX} bytes`,
    });
  });
});

describe("gRPC wire: headers", () => {
  it("reads grpc-timeout in every unit with connect's parser", () => {
    expect(grpcTimeoutOf(undefined)).toEqual({});
    expect(grpcTimeoutOf("2H").ms).toBe(7_200_000);
    expect(grpcTimeoutOf("3M").ms).toBe(180_000);
    expect(grpcTimeoutOf("4S").ms).toBe(4_000);
    expect(grpcTimeoutOf("250m").ms).toBe(250);
    expect(grpcTimeoutOf("1500u").ms).toBe(1.5);
    expect(grpcTimeoutOf("1n").ms).toBe(0.000_001);
    expect(grpcTimeoutOf("99999999S").ms).toBe(99_999_999_000);
  });

  it("refuses a grpc-timeout of another form as INVALID_ARGUMENT", () => {
    for (const value of ["", "soon", "10", "10s", "123456789m", "-1S", "1.5S", " 1S"]) {
      const { ms, error } = grpcTimeoutOf(value);
      expect(ms).toBeUndefined();
      expect(error?.code).toBe(Code.InvalidArgument);
      expect(error?.rawMessage).toBe(`protocol error: invalid grpc timeout value: ${value}`);
    }
  });

  it("chooses the codec from the content type; gRPC-Web and others are not gRPC", () => {
    expect(grpcCodecOf("application/grpc")).toBe("proto");
    expect(grpcCodecOf("application/grpc+proto")).toBe("proto");
    expect(grpcCodecOf("application/grpc+json")).toBe("json");
    expect(grpcCodecOf("application/grpc+json; charset=utf-8")).toBe("json");
    for (const other of [undefined, "", "application/grpc-web", "application/grpc+xml", "application/json"]) expect(grpcCodecOf(other)).toBeUndefined();
  });

  it("answers gzip only to a gzip request whose client accepts gzip", () => {
    expect(responseEncodingOf("gzip", undefined)).toBe("gzip");
    expect(responseEncodingOf("gzip", "identity,gzip")).toBe("gzip");
    expect(responseEncodingOf("gzip", ["identity", "gzip"])).toBe("gzip");
    expect(responseEncodingOf("gzip", "identity")).toBe("identity");
    expect(responseEncodingOf("identity", "gzip")).toBe("identity");
  });
});

describe("gRPC wire: trailers", () => {
  it("a failure's trailers: status, message percent-encoded outside printable ASCII and %, no details without a bad request", () => {
    expect(failureTrailers({ code: Code.NotFound, message: "no such api" })).toEqual({ "grpc-status": "5", "grpc-message": "no such api" });
    expect(failureTrailers({ code: Code.InvalidArgument, message: "100% ünknown\n" })).toEqual({
      "grpc-status": "3", "grpc-message": "100%25%20%C3%BCnknown%0A",
    });
    expect(encodeGrpcMessage("plain text ~")).toBe("plain text ~");
  });

  it("invalid input carries google.rpc.Status details, base64 without padding", () => {
    const trailers = failureTrailers({
      code: Code.InvalidArgument, message: "apiId: too short", badRequest: { fieldViolations: [{ field: "api_id", description: "too short" }] },
    });
    expect(trailers["grpc-status"]).toBe("3");
    const details = trailers["grpc-status-details-bin"];
    expect(details).toMatch(/^[A-Za-z0-9+/]+$/);
    const bytes = Buffer.from(details, "base64");
    expect(bytes.includes(Buffer.from("type.googleapis.com/google.rpc.BadRequest"))).toBe(true);
    expect(bytes.includes(Buffer.from("api_id"))).toBe(true);
  });
});
