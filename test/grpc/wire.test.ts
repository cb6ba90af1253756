import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { encodeGrpcMessage, failureTrailers, grpcCodecOf, grpcTimeoutOf, responseEncodingOf } from "../../src/transport/grpc/wire.js";

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
