import type { DescMessage } from "@bufbuild/protobuf";
import { restJsonText } from "./rest-json.js";

/**
 * The v2 success envelope. A list response (one with a `pagination` field) puts its `data` array in `data`
 * and its pagination beside it; any other response is the whole `data`.
 */
export function v2Envelope(schema: DescMessage, json: Record<string, unknown>, requestId: string) {
  const meta = { requestId };
  if (isList(schema)) {
    return { meta, data: json.data ?? [], pagination: json.pagination ?? { hasMore: false } };
  }
  return { meta, data: json };
}

/**
 * `JSON.stringify(v2Envelope(schema, toRestJson(schema, output), requestId))`, written from the output's JSON text
 * (rest-json.ts restJsonText) without the objects; undefined for a list response, whose envelope takes it apart.
 */
export function v2EnvelopeText(schema: DescMessage, output: object, requestId: string): string | undefined {
  if (isList(schema)) return undefined;
  return `{"meta":{"requestId":${JSON.stringify(requestId)}},"data":${restJsonText(schema, output as never)}}`;
}

// Decided once per message type rather than by a search on every response.
const lists = new WeakMap<DescMessage, boolean>();

function isList(schema: DescMessage): boolean {
  let list = lists.get(schema);
  if (list === undefined) lists.set(schema, (list = schema.fields.some((f) => f.jsonName === "pagination")));
  return list;
}
