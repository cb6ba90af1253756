import { Code } from "@connectrpc/connect";
import { expect } from "vitest";
import { expectFailure, expectSuccess, type FailureKind } from "./expect-outcome.js";
import { callOperation, OPERATIONS, type OperationName, type Outcome, type Via } from "./operations.js";

// The transports by the names the end-to-end tests read best: `for (const via of [restV1, restV2, connect, ...])`.
export const restV2 = "v2" as const satisfies Via;
export const restV1 = "v1" as const satisfies Via;
export const connect = "connect" as const satisfies Via;
export const grpc = "grpc" as const satisfies Via;
export const grpcWeb = "grpcWeb" as const satisfies Via;

/** Every transport of an operation with a v1 binding, and of one without (v2 and the RPC protocols). */
export const ALL_VIAS: Via[] = [restV1, restV2, connect, grpc, grpcWeb];
export const V2_AND_RPC: Via[] = [restV2, connect, grpc, grpcWeb];

/** One transport bound to a server: `call(op, input, rootKey?)` sends `Authorization: Bearer <rootKey>` when given. */
export interface ViaClient {
  via: Via;
  call(op: OperationName, input: unknown, rootKey?: string): Promise<Outcome>;
  /** Calls and asserts success; returns the payload (v2 `data`, v1 body, RPC message). */
  ok(op: OperationName, input: unknown, rootKey?: string): Promise<any>;
  /** Calls and asserts the failure `kind` in this transport's dialect; returns the outcome. */
  fails(op: OperationName, input: unknown, kind: FailureKind, options?: { rootKey?: string; detail?: string | RegExp }): Promise<Outcome>;
}

/** The same interface over every transport, so one test body runs on all of them. */
export function viaClient(baseUrl: string, via: Via, defaultRootKey?: string): ViaClient {
  const call = (op: OperationName, input: unknown, rootKey = defaultRootKey) =>
    callOperation(baseUrl, via, OPERATIONS[op], input, { authorization: rootKey === undefined ? undefined : `Bearer ${rootKey}` });
  return {
    via,
    call,
    ok: async (op, input, rootKey) => expectSuccess(await call(op, input, rootKey)),
    async fails(op, input, kind, options = {}) {
      const outcome = await call(op, input, options.rootKey);
      expectFailure(outcome, kind, { detail: options.detail });
      return outcome;
    },
  };
}

/**
 * Asserts a 412 in the transport's dialect: v2 precondition body, v1 `code` (e.g. DELETE_PROTECTED), RPC
 * FAILED_PRECONDITION; the detail must contain `detail`.
 */
export function expectPreconditionFailed(outcome: Outcome, options: { v1Code: string; detail: string }): void {
  if (outcome.via === "v2") {
    const { status, body, headers } = outcome.rest;
    expect(status).toBe(412);
    expect(body).toEqual({
      meta: { requestId: headers.get("x-request-id") },
      error: {
        title: "Precondition Failed",
        detail: expect.stringContaining(options.detail),
        status: 412,
        type: "https://keyward.dev/docs/errors/precondition_failed",
      },
    });
  } else if (outcome.via === "v1") {
    const { status, body, headers } = outcome.rest;
    expect(status).toBe(412);
    expect(body).toEqual({
      error: {
        code: options.v1Code,
        message: expect.stringContaining(options.detail),
        docs: `https://keyward.dev/docs/api-reference/errors/code/${options.v1Code}`,
        requestId: headers.get("x-request-id"),
      },
    });
  } else {
    if (outcome.ok) throw new Error(`${outcome.via} call unexpectedly succeeded`);
    expect(Code[outcome.error.code]).toBe(Code[Code.FailedPrecondition]);
    expect(outcome.error.rawMessage).toContain(options.detail);
  }
}

/** The `x-request-id` response header of any outcome, success or failure, REST or RPC. */
export function requestIdOf(outcome: Outcome): string | null {
  if (outcome.via === "v2" || outcome.via === "v1") return outcome.rest.headers.get("x-request-id");
  return outcome.ok ? outcome.headers.get("x-request-id") : outcome.error.metadata.get("x-request-id");
}

/** Request ids are `req_` plus base58 of a time-sortable 16-byte id (22 characters). */
export const REQUEST_ID = /^req_[1-9A-HJ-NP-Za-km-z]{22}$/;

/**
 * The empty key list in each dialect's exact shape, with no cursor anywhere since no next page exists:
 * v2 `{meta, data:[], pagination:{hasMore:false}}`, v1 `{keys:[], total:0}`, RPC `data=[]`, `total=0`.
 */
export function expectEmptyKeyList(outcome: Outcome): void {
  if (outcome.via === "v2") {
    expect(outcome.rest.status).toBe(200);
    expect(outcome.rest.body).toEqual({
      meta: { requestId: outcome.rest.headers.get("x-request-id") }, data: [], pagination: { hasMore: false },
    });
    expect(Object.keys(outcome.rest.body.pagination)).toEqual(["hasMore"]);
  } else if (outcome.via === "v1") {
    expect(outcome.rest.status).toBe(200);
    expect(outcome.rest.body).toEqual({ keys: [], total: 0 });
    expect(Object.keys(outcome.rest.body).sort()).toEqual(["keys", "total"]);
  } else {
    if (!outcome.ok) throw new Error(`${outcome.via} call failed: ${outcome.error.message}`);
    const message = outcome.message as { data: unknown[]; pagination?: { cursor?: string; hasMore: boolean }; total: bigint };
    expect(message.data).toEqual([]);
    expect(message.total).toBe(0n);
    expect(message.pagination?.hasMore).toBe(false);
    expect(message.pagination?.cursor).toBeUndefined();
  }
}
