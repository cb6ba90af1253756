import { getOption } from "@bufbuild/protobuf";
import { expect } from "vitest";
import { http } from "../../gen/google/api/annotations_pb.js";
import { counterTag } from "../../src/domain/verification.js";
import type { KeyRecord } from "../../src/store/ports/key-records.js";
import { toRestJson } from "../../src/transport/rest/rest-json.js";
import { expectSuccess } from "./expect-outcome.js";
import { OPERATIONS, type OperationName, type Outcome } from "./operations.js";
import type { Harness } from "./use-keyward.js";

/** A key as the store holds it, and its balance in the counter store (undefined: unlimited or gone). */
export interface KeyState {
  record?: KeyRecord;
  remaining?: number;
}

/** Reads a key's record and balance straight from the stores, to compare before and after a call. */
export async function keyState(harness: Harness, keyId: string, workspaceId = harness.keyward.workspaceId): Promise<KeyState> {
  const { documents, counters } = harness.keyward.stores;
  const record = await documents.keys.get(workspaceId, keyId);
  if (!record) return {};
  const remaining = await counters.readCredits(counterTag({ keyId, identityId: record.identityId }), keyId);
  return { record, remaining };
}

/** The live keys of an api in id (creation) order, from the store. */
export async function apiKeys(harness: Harness, apiId: string, workspaceId = harness.keyward.workspaceId): Promise<KeyRecord[]> {
  return harness.keyward.documents.keys.listByApi(workspaceId, apiId, { limit: 10_000 });
}

/**
 * Runs `act` (a refused call) and asserts it changed nothing: no document write, the api's live keys and each
 * named key's record and balance read the same before and after.
 */
export async function expectKeysUnchanged(
  harness: Harness,
  scope: { apiIds?: string[]; keyIds?: string[]; workspaceId?: string },
  act: () => Promise<unknown>,
): Promise<void> {
  const read = async () => ({
    apis: await Promise.all((scope.apiIds ?? []).map((apiId) => apiKeys(harness, apiId, scope.workspaceId))),
    keys: await Promise.all((scope.keyIds ?? []).map((keyId) => keyState(harness, keyId, scope.workspaceId))),
  });
  const before = await read();
  harness.writes.clear();
  await act();
  expect(harness.writes.writes).toEqual([]);
  expect(await read()).toEqual(before);
}

/** The verification code a key gets from v2 keys.verifyKey right now (bootstrap root key, optional credit cost). */
export async function verifyCode(harness: Harness, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const response = await harness.rest.v2("keys.verifyKey", { key, ...body }, harness.keyward.rootKey);
  expect(response.status).toBe(200);
  return response.body.data.code;
}

/**
 * A successful call's payload as v2 JSON `data`: REST v2 as sent, v1 as its bare body, and an RPC message through
 * the same JSON view REST uses (64-bit integers as numbers), unwrapped like the binding's `response_body`.
 */
export function dataOf(name: OperationName, outcome: Outcome): any {
  const payload = expectSuccess(outcome);
  if (outcome.via === "v2" || outcome.via === "v1") return payload;
  const op = OPERATIONS[name];
  const method = op.service.methods.find((m) => m.localName === op.method);
  if (!method) throw new Error(`${op.service.typeName} has no ${op.method}`);
  const json = toRestJson(method.output, payload);
  const responseBody = getOption(method, http).responseBody;
  const field = method.output.fields.find((f) => f.name === responseBody);
  return field ? (json[field.jsonName] ?? {}) : json;
}
