import { Code } from "@connectrpc/connect";
import type { ErrorKind } from "../domain/errors.js";

interface KindStatus {
  http: number;
  /** v1 `error.code`. */
  v1Code: string;
  /** v2 `error.title` and the last segment of `error.type`. */
  title: string;
  slug: string;
  grpc: Code;
}

/** The one table from error kinds to each dialect's status; a `reason` may refine the v1 code. */
export const STATUS_BY_KIND: Record<ErrorKind, KindStatus> = {
  invalid: { http: 400, v1Code: "BAD_REQUEST", title: "Bad Request", slug: "bad_request", grpc: Code.InvalidArgument },
  unauthenticated: { http: 401, v1Code: "UNAUTHORIZED", title: "Unauthorized", slug: "unauthorized", grpc: Code.Unauthenticated },
  forbidden: { http: 403, v1Code: "FORBIDDEN", title: "Forbidden", slug: "forbidden", grpc: Code.PermissionDenied },
  not_found: { http: 404, v1Code: "NOT_FOUND", title: "Not Found", slug: "not_found", grpc: Code.NotFound },
  method_not_allowed: {
    http: 405, v1Code: "METHOD_NOT_ALLOWED", title: "Method Not Allowed", slug: "method_not_allowed", grpc: Code.Unimplemented,
  },
  conflict: { http: 409, v1Code: "CONFLICT", title: "Conflict", slug: "conflict", grpc: Code.AlreadyExists },
  idempotency_conflict: { http: 409, v1Code: "CONFLICT", title: "Conflict", slug: "conflict", grpc: Code.FailedPrecondition },
  // REST has one 409 for both; gRPC tells the caller that a retry may succeed (ABORTED) from "already exists".
  aborted: { http: 409, v1Code: "CONFLICT", title: "Conflict", slug: "conflict", grpc: Code.Aborted },
  precondition: {
    http: 412, v1Code: "PRECONDITION_FAILED", title: "Precondition Failed", slug: "precondition_failed", grpc: Code.FailedPrecondition,
  },
  payload_too_large: {
    http: 413, v1Code: "BAD_REQUEST", title: "Payload Too Large", slug: "payload_too_large", grpc: Code.ResourceExhausted,
  },
  unsupported_media_type: {
    http: 415, v1Code: "BAD_REQUEST", title: "Unsupported Media Type", slug: "unsupported_media_type", grpc: Code.InvalidArgument,
  },
  rate_limited: { http: 429, v1Code: "TOO_MANY_REQUESTS", title: "Too Many Requests", slug: "too_many_requests", grpc: Code.ResourceExhausted },
  unavailable: { http: 503, v1Code: "INTERNAL_SERVER_ERROR", title: "Service Unavailable", slug: "service_unavailable", grpc: Code.Unavailable },
  internal: { http: 500, v1Code: "INTERNAL_SERVER_ERROR", title: "Internal Server Error", slug: "internal_server_error", grpc: Code.Internal },
};
