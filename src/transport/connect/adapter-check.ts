import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { DescMessage } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  createAsyncIterable, readAllBytes, type UniversalHandler, type UniversalServerRequest, type UniversalServerResponse,
} from "@connectrpc/connect/protocol";
import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus, trailerFlag, trailerSerialize } from "@connectrpc/connect/protocol-grpc-web";
import { KeywardError } from "../../domain/errors.js";
import { decodeProtoBinary } from "../binary-check.js";
import { unframeUnary } from "../envelope.js";
import { rpcFailureOf } from "../rpc-error.js";

/**
 * The binary unary calls connect-node decodes itself (gRPC-Web, and Connect with a compressed body) held to the rules
 * of Keyward's own paths: the body is read first and its message checked by decodeProtoBinary (no field of the wrong
 * wire type, nothing truncated), so a broken message is refused INVALID_ARGUMENT naming the field. connect-node would
 * read a wrong wire type as if it were right, and answer a message it cannot parse with INTERNAL (HTTP 500 on
 * Connect). A message that passes is handed on as the same bytes; everything else (JSON, GET, other compressions)
 * passes through untouched.
 */
export function checkBinaryBodies(handler: UniversalHandler, schema: DescMessage, maxBytes: number): UniversalHandler {
  const checked = async (request: UniversalServerRequest): Promise<UniversalServerResponse> => {
    const protocol = protocolOf(request);
    if (protocol === undefined || !(Symbol.asyncIterator in Object(request.body))) return handler(request);
    let body: Uint8Array;
    try {
      body = await readBody(request.body as AsyncIterable<Uint8Array>, maxBytes);
      const message = protocol === "grpc-web" ? grpcWebMessage(request, body, maxBytes) : connectMessage(request, body, maxBytes);
      if (message !== undefined) decodeProtoBinary(schema, message);
    } catch (error) {
      return protocol === "grpc-web" ? grpcWebError(asConnectError(error)) : connectError(asConnectError(error));
    }
    return handler({ ...request, body: createAsyncIterable([body]) });
  };
  return Object.assign(checked, handler);
}

type Protocol = "grpc-web" | "connect";

/** The whole body, refused as gRPC refuses it past `maxBytes` (plus a frame header). */
async function readBody(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  try {
    return await readAllBytes(body, maxBytes + 5);
  } catch (error) {
    if (error instanceof ConnectError && error.code === Code.ResourceExhausted) {
      throw new ConnectError(`the request is larger than the limit of ${maxBytes} bytes`, Code.ResourceExhausted);
    }
    throw error;
  }
}

function protocolOf(request: UniversalServerRequest): Protocol | undefined {
  if (request.method !== "POST") return undefined;
  const type = (request.header.get("content-type") ?? "").split(";", 1)[0].trim().toLowerCase();
  if (type === "application/grpc-web" || type === "application/grpc-web+proto") return "grpc-web";
  return type === "application/proto" ? "connect" : undefined;
}

/** The one message of a gRPC-Web unary request, or undefined for an encoding this check does not read (left as is). */
function grpcWebMessage(request: UniversalServerRequest, body: Uint8Array, maxBytes: number): Uint8Array | undefined {
  const encoding = request.header.get("grpc-encoding") ?? "identity";
  if (encoding !== "identity" && encoding !== "gzip") return undefined;
  const unframed = unframeUnary(Buffer.from(body.buffer, body.byteOffset, body.byteLength), { encoding, maxBytes });
  if (unframed.ok) return unframed.message;
  throw new ConnectError(unframed.detail, unframed.reason === "too_large" ? Code.ResourceExhausted : Code.InvalidArgument);
}

/** A Connect unary body, inflated per `content-encoding` (connect-node takes gzip and br). */
function connectMessage(request: UniversalServerRequest, body: Uint8Array, maxBytes: number): Uint8Array | undefined {
  const encoding = request.header.get("content-encoding") ?? "identity";
  try {
    if (encoding === "identity") return body;
    if (encoding === "gzip") return gunzipSync(body, { maxOutputLength: maxBytes });
    if (encoding === "br") return brotliDecompressSync(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new ConnectError(`the inflated message is larger than the limit of ${maxBytes} bytes`, Code.ResourceExhausted);
    }
    throw new ConnectError(`the body is not valid ${encoding}`, Code.InvalidArgument);
  }
  return undefined;
}

function asConnectError(error: unknown): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof KeywardError) {
    const failure = rpcFailureOf(error);
    return new ConnectError(failure.message, failure.code);
  }
  return ConnectError.from(error, Code.InvalidArgument);
}

/** A trailers-only gRPC-Web answer: status 200, the status in the one trailer frame of the body. */
function grpcWebError(error: ConnectError): UniversalServerResponse {
  const trailer = new Headers();
  setTrailerStatus(trailer, error);
  const serialized = trailerSerialize(trailer);
  const frame = new Uint8Array(5 + serialized.length);
  frame[0] = trailerFlag;
  new DataView(frame.buffer).setUint32(1, serialized.length);
  frame.set(serialized, 5);
  return { status: 200, header: new Headers({ "content-type": "application/grpc-web+proto" }), body: createAsyncIterable([frame]) };
}

/** A Connect unary error: the code's HTTP status and the error JSON. */
function connectError(error: ConnectError): UniversalServerResponse {
  return {
    status: codeToHttpStatus(error.code),
    header: new Headers({ "content-type": "application/json" }),
    body: createAsyncIterable([errorToJsonBytes(error, {})]),
  };
}
