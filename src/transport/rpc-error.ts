import { create, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { KeywardError } from "../domain/errors.js";
import { DeadlineExceededError } from "../services/context.js";
import { STATUS_BY_KIND } from "./status.js";

/** A failed RPC as both RPC protocols report it: code, message, and for invalid input a `google.rpc.BadRequest`. */
export interface RpcFailure {
  code: Code;
  message: string;
  badRequest?: MessageInitShape<typeof BadRequestSchema>;
}

/**
 * Maps whatever an operation threw to its RPC failure. Invalid input names each broken field by its proto path
 * (`api_id`, `permissions[0]`), as `google.rpc.BadRequest` expects. Unknown errors are answered INTERNAL without
 * their text, which may hold anything; the transport hands the error itself to the request log, stack and all.
 */
export function rpcFailureOf(error: unknown): RpcFailure {
  if (error instanceof ConnectError) return { code: error.code, message: error.rawMessage };
  if (error instanceof DeadlineExceededError) return { code: Code.DeadlineExceeded, message: error.message };
  if (!(error instanceof KeywardError)) {
    return { code: Code.Internal, message: "An internal error occurred; the request id identifies it in the logs." };
  }
  const failure: RpcFailure = { code: STATUS_BY_KIND[error.kind].grpc, message: error.message };
  if (error.violations.length > 0) {
    failure.badRequest = {
      fieldViolations: error.violations.map((v) => ({ field: v.field ?? v.location, description: v.message })),
    };
  }
  return failure;
}

/**
 * The failure as Connect's error, whose details connect-node writes for the Connect, gRPC and gRPC-Web protocols.
 * `cause` (the original error) rides along for the request log; it is never sent.
 */
export function toConnectError(failure: RpcFailure, cause?: unknown): ConnectError {
  const details = failure.badRequest ? [{ desc: BadRequestSchema, value: failure.badRequest }] : undefined;
  return new ConnectError(failure.message, failure.code, undefined, details, cause);
}

/** The `grpc-status-details-bin` payload: a `google.rpc.Status` with the details packed as `Any`. */
export function statusDetailsOf(failure: RpcFailure): Uint8Array | undefined {
  if (!failure.badRequest) return undefined;
  return toBinary(StatusSchema, create(StatusSchema, {
    code: failure.code,
    message: failure.message,
    details: [anyPack(BadRequestSchema, create(BadRequestSchema, failure.badRequest))],
  }));
}
