import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { invalid, KeywardError } from "../../domain/errors.js";
import type { ExchangeRequest } from "../exchange.js";
import { fastCodecOf } from "../fast-codecs.js";
import { decodeCheckedJson } from "../json-check.js";

// REST's own encoding on the way in: the request target, the JSON body or GET query, and the update mask REST derives
// from the body. The way out is rest-json.ts (the proto JSON REST answers) and errors.ts.

/** Path and query of a request target; cheaper than `new URL` for the common POST without a query. */
export function splitUrl(target: string): { pathname: string; search: string } {
  const at = target.indexOf("?");
  if (at === -1) return { pathname: target, search: "" };
  return { pathname: target.slice(0, at), search: target.slice(at + 1) };
}

/** The input message from REST JSON (body or query); input errors are named under `prefix` (`body` or `query`). */
export function decodeInput(schema: DescMessage, input: unknown, options: { allowUnknown: boolean; prefix: string }) {
  // The generated decoder (buf.gen.yaml's hot-path messages) takes plainly valid input without the check's walk and
  // fromJson's reflection; anything else, and every message with an update mask, goes the full way below.
  const fast = maskFieldOf(schema) === null ? fastCodecOf(schema)?.json(input, options.allowUnknown) : undefined;
  if (fast !== undefined) return fast;
  return decodeCheckedJson(schema, withUpdateMask(schema, input), {
    allowUnknown: options.allowUnknown, prefix: "", dialect: "rest", name: namerOf(options.prefix),
  });
}

// One namer per prefix (`body`, `query`), made once rather than a closure per request (under tsx each closure also
// costs a defineProperty for its name: ~3 % of REST verification when run from source).
const namers = new Map<string, (location: string) => string>();

function namerOf(prefix: string): (location: string) => string {
  let namer = namers.get(prefix);
  if (!namer) namers.set(prefix, (namer = (location) => `${prefix}${location ? "." + location : ""}`));
  return namer;
}

/**
 * REST bodies are JSON: a declared media type other than JSON (`application/json`, `+json` types) or a
 * `Content-Encoding` other than identity is refused with 415 rather than read as JSON. A body with no content type
 * at all is read as JSON, as simple clients send it.
 */
export function requireJsonBody(headers: ExchangeRequest["headers"]): void {
  const type = headers["content-type"];
  if (type !== undefined && type !== "application/json") {
    const media = type.split(";", 1)[0].trim().toLowerCase();
    if (media !== "application/json" && !(media.startsWith("application/") && media.endsWith("+json"))) {
      throw new KeywardError("unsupported_media_type", `Content-Type ${media || "(empty)"} is not supported; send application/json.`);
    }
  }
  const encoding = headers["content-encoding"];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
    throw new KeywardError("unsupported_media_type", `Content-Encoding ${encoding} is not supported; send the body uncompressed.`);
  }
}

/**
 * For a request with an `update_mask` (AIP-134), REST derives the mask from the body: every field present is
 * listed, nested messages by their present sub-fields (`{"credits":{"refill":null}}` → `credits.refill`), and a
 * null is dropped from the body so the listed field reads as unset, i.e. cleared. Elsewhere null means absent.
 */
function withUpdateMask(schema: DescMessage, input: unknown): unknown {
  const maskField = maskFieldOf(schema);
  if (!maskField || !isPlainObject(input) || maskField.jsonName in input) return input;
  const paths: string[] = [];
  const collect = (value: Record<string, unknown>, message: DescMessage, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const field = message.fields.find((f) => f.jsonName === key || f.name === key);
      if (!field) {
        out[key] = item; // left for the unknown-field check
        continue;
      }
      const nested = field.fieldKind === "message" && !field.message.typeName.startsWith("google.protobuf.");
      if (nested && isPlainObject(item) && Object.keys(item).length > 0) {
        out[key] = collect(item, field.message, `${prefix}${field.name}.`);
        continue;
      }
      paths.push(prefix + field.name);
      if (item !== null) out[key] = item;
    }
    return out;
  };
  const body = collect(input, schema, "");
  // FieldMask JSON is comma-separated lowerCamelCase paths.
  body[maskField.jsonName] = paths.map((p) => p.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())).join(",");
  return body;
}

// Looked up once per message type: most requests (every verification) have no mask, and need not search for one.
const maskFields = new WeakMap<DescMessage, DescField | null>();

function maskFieldOf(schema: DescMessage): DescField | null {
  let field = maskFields.get(schema);
  if (field === undefined) {
    field = schema.fields.find((f) => f.name === "update_mask" && f.message?.typeName === "google.protobuf.FieldMask") ?? null;
    maskFields.set(schema, field);
  }
  return field;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Query parameters as the JSON object of the input message: integers and booleans converted by field type. */
export function queryToJson(schema: DescMessage, params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const field = schema.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field) continue; // v1 tolerates unknown query parameters
    const values = params.getAll(key);
    out[key] = field.fieldKind === "list" ? values.map((v) => fromQuery(field, v)) : fromQuery(field, values[values.length - 1]);
  }
  return out;
}

function fromQuery(field: DescField, raw: string): unknown {
  const scalar = field.fieldKind === "scalar" || field.fieldKind === "list" ? field.scalar : undefined;
  if (scalar === undefined) return raw;
  if (scalar === 8 /* BOOL */) return raw === "true" ? true : raw === "false" ? false : raw;
  if (scalar === 9 /* STRING */ || scalar === 12 /* BYTES */) return raw;
  return /^-?\d+$/.test(raw) ? Number(raw) : raw;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // An empty (or blank) body fails to parse too: told apart only then, not on every request.
    if (text.trim() === "") throw invalid("The request body is empty; send a JSON object.", [{ location: "", message: "empty body" }]);
    const detail = (error as Error).message;
    throw invalid(`The request body is not valid JSON: ${detail}`, [{ location: "", message: detail }]);
  }
}
