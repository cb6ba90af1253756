import type { KeywardError } from "../../domain/errors.js";
import { STATUS_BY_KIND } from "../status.js";

export type Dialect = "v1" | "v2";

/** The error body of a REST dialect (DESIGN.md §3) and its HTTP status. */
export function restErrorBody(
  dialect: Dialect,
  error: KeywardError,
  options: { requestId: string; docsUrl: string; locationPrefix?: string },
): { status: number; body: unknown } {
  const status = STATUS_BY_KIND[error.kind];
  if (dialect === "v1") {
    const code = error.reason ?? status.v1Code;
    return {
      status: status.http,
      body: {
        error: {
          code,
          message: error.message,
          docs: `${options.docsUrl}/api-reference/errors/code/${code}`,
          requestId: options.requestId,
        },
      },
    };
  }
  const prefix = options.locationPrefix ?? "body";
  const errors = error.violations.map((v) => ({
    location: v.location.startsWith(`${prefix}`) ? v.location : v.location ? `${prefix}.${v.location}` : prefix,
    message: v.message,
  }));
  return {
    status: status.http,
    body: {
      meta: { requestId: options.requestId },
      error: {
        title: status.title,
        detail: error.message,
        status: status.http,
        type: `${options.docsUrl}/errors/${status.slug}`,
        ...(error.kind === "invalid" && { errors }),
      },
    },
  };
}
