import { Code } from "@connectrpc/connect";
import { expect } from "vitest";
import type { Outcome } from "./operations.js";

/** The failures the management routes answer, with each dialect's fixed shape (DESIGN.md §3). */
export type FailureKind = "invalid" | "unauthenticated" | "forbidden" | "not_found" | "payload_too_large"
  | "conflict";

const EXPECTED: Record<FailureKind, { http: number; title: string; slug: string; v1Code: string; rpc: Code }> = {
  invalid: { http: 400, title: "Bad Request", slug: "bad_request", v1Code: "BAD_REQUEST", rpc: Code.InvalidArgument },
  unauthenticated: { http: 401, title: "Unauthorized", slug: "unauthorized", v1Code: "UNAUTHORIZED", rpc: Code.Unauthenticated },
  forbidden: { http: 403, title: "Forbidden", slug: "forbidden", v1Code: "INSUFFICIENT_PERMISSIONS", rpc: Code.PermissionDenied },
  conflict: { http: 409, title: "Conflict", slug: "conflict", v1Code: "CONFLICT", rpc: Code.AlreadyExists },
  not_found: { http: 404, title: "Not Found", slug: "not_found", v1Code: "NOT_FOUND", rpc: Code.NotFound },
  payload_too_large: {
    http: 413, title: "Payload Too Large", slug: "payload_too_large", v1Code: "BAD_REQUEST", rpc: Code.ResourceExhausted,
  },
};

export interface FailureExpectation {
  /** Text the detail (v2 `error.detail`, v1 `error.message`, RPC message) must contain. */
  detail?: string | RegExp;
  /** v2 only: exactly these `error.errors[].location`s, in any order, duplicates collapsed. */
  locations?: string[];
}

/**
 * Asserts `outcome` is the failure `kind` in its dialect: v2 status, title, status field, type slug and request
 * id (body equals header); v1 status, code, docs link and request id; RPC code. Returns the detail text.
 */
export function expectFailure(outcome: Outcome, kind: FailureKind, expectation: FailureExpectation = {}): string {
  const want = EXPECTED[kind];
  let detail: string;
  if (outcome.via === "v2") {
    const { status, body, headers } = outcome.rest;
    expect({ via: outcome.via, status }).toEqual({ via: "v2", status: want.http });
    expect(body.error.title).toBe(want.title);
    expect(body.error.status).toBe(want.http);
    expect(body.error.type).toBe(`https://keyward.dev/docs/errors/${want.slug}`);
    expect(body.meta.requestId).toMatch(/^req_[1-9A-HJ-NP-Za-km-z]{22}$/);
    expect(headers.get("x-request-id")).toBe(body.meta.requestId);
    if (kind === "invalid") {
      expect(Array.isArray(body.error.errors)).toBe(true);
      if (expectation.locations) {
        const locations = [...new Set(body.error.errors.map((e: { location: string }) => e.location))].sort();
        expect(locations).toEqual([...new Set(expectation.locations)].sort());
      }
    } else {
      expect(body.error.errors).toBeUndefined();
    }
    detail = body.error.detail;
  } else if (outcome.via === "v1") {
    const { status, body, headers } = outcome.rest;
    expect({ via: outcome.via, status }).toEqual({ via: "v1", status: want.http });
    expect(body.error.code).toBe(want.v1Code);
    expect(body.error.docs).toBe(`https://keyward.dev/docs/api-reference/errors/code/${want.v1Code}`);
    expect(body.error.requestId).toMatch(/^req_/);
    expect(headers.get("x-request-id")).toBe(body.error.requestId);
    detail = body.error.message;
  } else {
    expect(outcome.ok, `${outcome.via} call unexpectedly succeeded`).toBe(false);
    if (outcome.ok) throw new Error("unreachable");
    expect({ via: outcome.via, code: Code[outcome.error.code] }).toEqual({ via: outcome.via, code: Code[want.rpc] });
    detail = outcome.error.rawMessage;
  }
  if (typeof expectation.detail === "string") expect(detail).toContain(expectation.detail);
  else if (expectation.detail) expect(detail).toMatch(expectation.detail);
  return detail;
}

/** Asserts success in the dialect and returns the payload: v2 `data`, v1 bare body, RPC message. */
export function expectSuccess(outcome: Outcome): any {
  if (outcome.via === "v2") {
    expect({ via: outcome.via, status: outcome.rest.status, error: outcome.rest.body?.error }).toEqual({
      via: "v2", status: 200, error: undefined,
    });
    expect(outcome.rest.body.meta.requestId).toBe(outcome.rest.headers.get("x-request-id"));
    return outcome.rest.body.data;
  }
  if (outcome.via === "v1") {
    expect({ via: outcome.via, status: outcome.rest.status, error: outcome.rest.body?.error }).toEqual({
      via: "v1", status: 200, error: undefined,
    });
    return outcome.rest.body;
  }
  if (!outcome.ok) throw new Error(`${outcome.via} call failed: ${outcome.error.message}`);
  return outcome.message;
}
