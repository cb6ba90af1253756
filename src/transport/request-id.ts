import { randomBytes } from "node:crypto";
import { newId } from "../domain/ids.js";

/** A fresh `req_...` id for one request; echoed in the body and the `x-request-id` header. */
export function newRequestId(): string {
  return newId("req", Date.now(), randomBytes);
}

export const REQUEST_ID_HEADER = "x-request-id";
