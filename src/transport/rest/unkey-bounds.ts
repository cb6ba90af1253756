import { invalid } from "../../domain/errors.js";

/**
 * Bounds one REST dialect has and the shared proto cannot carry, because the other dialect (or the RPCs) differ:
 * each mirrors one of Unkey's published request rules. Every check throws `invalid` naming the field and returns
 * the input unchanged otherwise, so a refused request changes nothing.
 */

type Json = Record<string, any>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Unkey v2's external id characters on writes (lookups take any text). */
const EXTERNAL_ID = /^[a-zA-Z0-9_.-]+$/;

/**
 * 400 naming the first of `names` that a JSON object body leaves out: a field Unkey requires whose absence the proto
 * would read as empty (an empty list in a set* call means "remove all"). Other bodies are left to the JSON check.
 */
export function requirePresent(input: unknown, names: string[]): void {
  if (!isObject(input)) return;
  const missing = names.find((name) => input[name] === undefined);
  if (missing !== undefined) throw invalid(`${missing} is required.`, [{ location: missing, message: "is required" }]);
}

/** 400 at `location` when `value` is a string shorter than `min` characters; other types are left to the proto. */
export function requireMinLength(value: unknown, min: number, location: string): void {
  if (typeof value === "string" && value.length < min) {
    throw invalid(`${location}: must be at least ${min} characters`, [{ location, message: `must be at least ${min} characters` }]);
  }
}

/**
 * v2 rate-limit names (on keys, identities and verifications) have at least 3 characters; v1 takes 1. A plain loop:
 * verifyKey runs it on every request.
 */
function checkRatelimitNames(input: Json): void {
  const limits = input.ratelimits;
  if (!Array.isArray(limits)) return;
  for (let i = 0; i < limits.length; i++) {
    const name = isObject(limits[i]) ? limits[i].name : undefined;
    if (typeof name === "string" && name.length < 3) requireMinLength(name, 3, `ratelimits[${i}].name`);
  }
}

/** v2 writes take external ids of letters, digits, `_`, `.` and `-`; v1 and every lookup take any text. */
function checkExternalId(input: Json): void {
  if (typeof input.externalId === "string" && input.externalId !== "" && !EXTERNAL_ID.test(input.externalId)) {
    throw invalid("externalId: must contain only letters, digits, _, . and -", [
      { location: "externalId", message: "must match ^[a-zA-Z0-9_.-]+$" },
    ]);
  }
}

/** v2 createKey, updateKey, createIdentity: external id characters and rate-limit name lengths. */
export function v2KeyOrIdentityWrite(input: unknown): unknown {
  if (!isObject(input)) return input;
  checkExternalId(input);
  checkRatelimitNames(input);
  return input;
}

/** v2 updateIdentity: rate-limit name lengths. */
export function v2RatelimitNames(input: unknown): unknown {
  if (isObject(input)) checkRatelimitNames(input);
  return input;
}

/** v2 verifyKey: `credits` must say its cost (the proto defaults an absent one to 1, as v1 does); limit names ≥ 3. */
export function v2VerifyKeyRequest(input: unknown): unknown {
  if (!isObject(input)) return input;
  if (isObject(input.credits) && input.credits.cost === undefined) {
    throw invalid("credits.cost is required.", [{ location: "credits.cost", message: "required" }]);
  }
  checkRatelimitNames(input);
  return input;
}
