import { it } from "vitest";
import { OPERATIONS, RPC_VIAS, type OperationName, type Via } from "./operations.js";
import { bearerOf, expectRefusal } from "./refusal.js";
import type { Harness } from "./use-keyward.js";

/** One bad request and what the 400 must say about it. */
export interface BadInput {
  what: string;
  input: string | Record<string, unknown>;
  /** v2 `errors[].location`s, exactly. */
  locations?: string[];
  /** Text the detail (v1 message, RPC message) must contain; defaults to nothing beyond the status. */
  detail?: string | RegExp;
  /** Where to send it; defaults to v2 plus v1 when v1 binds the operation with a JSON body. */
  vias?: Via[];
}

/** Bodies that are not a JSON object at all, each with the one location v2 names: the body itself. */
export const NOT_AN_OBJECT: BadInput[] = [
  { what: "malformed JSON", input: "{not json", locations: ["body"], detail: "not valid JSON" },
  { what: "a truncated JSON object", input: '{"name":', locations: ["body"], detail: "not valid JSON" },
  { what: "an empty body", input: "", locations: ["body"], detail: "empty" },
  { what: "a JSON array", input: "[]", locations: ["body"], detail: "must be an object" },
  { what: "a JSON string", input: '"x"', locations: ["body"], detail: "must be an object" },
  { what: "JSON null", input: "null", locations: ["body"], detail: "must be an object" },
  { what: "a JSON number", input: "42", locations: ["body"], detail: "must be an object" },
];

/**
 * Registers one test per bad input: the bootstrap root key (every permission) sends it and gets 400 with the
 * dialect's body and the named locations, and nothing changes in the store.
 */
export function badInputCases(harness: Harness, name: OperationName, cases: BadInput[]): void {
  const op = OPERATIONS[name];
  const defaultVias: Via[] = op.v1?.verb === "POST" ? ["v2", "v1"] : ["v2"];
  for (const bad of cases) {
    const vias = bad.vias ?? defaultVias;
    it(`answers 400 to ${bad.what} on ${vias.join(", ")}`, async () => {
      for (const via of vias) {
        await expectRefusal(harness, {
          via, op: name, input: bad.input, authorization: bearerOf(harness.keyward.rootKey), kind: "invalid",
          locations: via === "v2" ? bad.locations : undefined, detail: bad.detail,
        });
      }
    });
  }
}

/** One request with field values the contract refuses; the RPC error message must name `field`. */
export interface BadRpcInput {
  what: string;
  input: Record<string, unknown>;
  field: string;
}

/** Registers one test per case: Connect, gRPC and gRPC-Web all answer InvalidArgument naming the field. */
export function badRpcCases(harness: Harness, name: OperationName, cases: BadRpcInput[]): void {
  for (const bad of cases) {
    it(`answers InvalidArgument naming ${bad.field} to ${bad.what} over Connect, gRPC and gRPC-Web`, async () => {
      for (const via of RPC_VIAS) {
        await expectRefusal(harness, {
          via, op: name, input: bad.input, authorization: bearerOf(harness.keyward.rootKey), kind: "invalid",
          detail: bad.field,
        });
      }
    });
  }
}

/**
 * The bad input every paged v2-style listing (limit, cursor; with `search`, a name search too) refuses, over REST
 * and RPC; `unknown` is a field this operation does not take.
 */
export function pagedListCases(
  harness: Harness,
  name: OperationName,
  options: { unknown: { field: string; value: unknown }; search?: boolean },
): void {
  const forged = Buffer.from("../../etc/passwd").toString("base64url");
  const { field, value } = options.unknown;
  const search = options.search ?? false;
  badInputCases(harness, name, [
    ...NOT_AN_OBJECT,
    { what: "limit 0", input: { limit: 0 }, locations: ["body.limit"], detail: "limit" },
    { what: "limit 101", input: { limit: 101 }, locations: ["body.limit"], detail: "limit" },
    { what: "a string for limit", input: { limit: "5" }, locations: ["body.limit"], detail: "must be an integer" },
    { what: "a float for limit", input: { limit: 2.5 }, locations: ["body.limit"], detail: "must be an integer" },
    { what: "a number for the cursor", input: { cursor: 5 }, locations: ["body.cursor"], detail: "must be a string" },
    { what: "a cursor of 1025 characters", input: { cursor: "c".repeat(1025) }, locations: ["body.cursor"], detail: "cursor" },
    { what: "a cursor this service never issued", input: { cursor: "not-a-cursor" }, locations: ["body.cursor"], detail: "cursor" },
    { what: "a forged cursor", input: { cursor: forged }, locations: ["body.cursor"], detail: "cursor" },
    ...(search
      ? [
          { what: "a number for search", input: { search: 5 }, locations: ["body.search"], detail: "must be a string" },
          { what: "an array for search", input: { search: ["shop"] }, locations: ["body.search"], detail: "must be a string" },
          { what: "an empty search", input: { search: "" }, locations: ["body.search"], detail: "search" },
          { what: "a search of 257 characters", input: { search: "x".repeat(257) }, locations: ["body.search"], detail: "search" },
        ]
      : []),
    { what: "an unknown field", input: { limit: 5, [field]: value }, locations: [`body.${field}`], detail: `body.${field}` },
  ]);
  badRpcCases(harness, name, [
    { what: "limit 0", input: { limit: 0 }, field: "limit:" },
    { what: "limit 101", input: { limit: 101 }, field: "limit:" },
    { what: "a cursor this service never issued", input: { cursor: "not-a-cursor" }, field: "cursor" },
    ...(search
      ? [
          { what: "an empty search", input: { search: "" }, field: "search:" },
          { what: "a search of 257 characters", input: { search: "x".repeat(257) }, field: "search:" },
        ]
      : []),
  ]);
}
