import type { DescMessage } from "@bufbuild/protobuf";
import type { Route } from "../transport/rest/routes.js";
import { fieldSchema, messageRef, messageSchema, type JsonSchema, type SchemaRegistry, type Side } from "./json-schema.js";
import { errorComponents, errorStatuses, IDEMPOTENT } from "./errors.js";

export type Dialect = "v1" | "v2";

/** Helpers a route shape uses to describe a dialect's JSON in terms of the proto's. */
export interface ShapeTools {
  /** A `$ref` to a message's component. */
  ref(message: DescMessage, side: Side): JsonSchema;
  /** A message's schema written out (to change it before naming it). */
  inline(message: DescMessage, side: Side): JsonSchema;
  /** The schema of one field of a message, by JSON name. */
  field(message: DescMessage, jsonName: string, side: Side): JsonSchema;
  /** Registers a dialect-specific component (once) and returns its `$ref`. */
  component(name: string, build: () => JsonSchema): JsonSchema;
}

/**
 * Where a dialect's JSON differs from the proto JSON of a route (the mappings in src/transport/rest): each function
 * gets the schema generated from the descriptor and returns the one the route really reads or writes.
 */
export interface RouteShape {
  request?: (generated: JsonSchema, tools: ShapeTools) => JsonSchema;
  response?: (generated: JsonSchema, tools: ShapeTools) => JsonSchema;
  /** The success status when it is not 200 (the dialect mapping's `status`). */
  status?: number;
}

export interface DocumentOptions {
  dialect: Dialect;
  /** The REST router's routes (routesOf): only this dialect's are documented. */
  routes: Route[];
  shapes: Record<string, RouteShape>;
  /** Cross-field rules of request messages (`anyOf`, `dependentRequired`), by message type name. */
  requestRules: Record<string, JsonSchema>;
  /** Proto comments by full name, for descriptions (empty: none). */
  comments: Map<string, string>;
  /** Paths that serve the documents themselves (GET, no root key). */
  documentPaths: string[];
}

const JSON_TYPE = "application/json";

/** The OpenAPI 3.1 document of one REST dialect, built from the same routes and descriptors the server uses. */
export function buildOpenApi(options: DocumentOptions): JsonSchema {
  const { dialect } = options;
  const registry: SchemaRegistry = {
    components: {}, owners: new Map(), openRequests: dialect === "v1", requestRules: options.requestRules, comments: options.comments,
  };
  const tools: ShapeTools = {
    ref: (message, side) => messageRef(registry, message, side),
    inline: (message, side) => messageSchema(registry, message, side),
    field(message, jsonName, side) {
      const field = message.fields.find((f) => f.jsonName === jsonName);
      if (!field) throw new Error(`${message.typeName} has no field ${jsonName}`);
      return fieldSchema(registry, field, side);
    },
    component(name, build) {
      if (!(name in registry.components)) registry.components[name] = build();
      return { $ref: `#/components/schemas/${name}` };
    },
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of options.routes.filter((r) => r.dialect === dialect)) {
    paths[route.path] = { [route.verb.toLowerCase()]: operationOf(route, options.shapes[route.path] ?? {}, registry, tools, dialect) };
  }
  for (const path of options.documentPaths) paths[path] = { get: documentOperation(dialect) };
  const errors = errorComponents(dialect);
  return {
    openapi: "3.1.0",
    info: {
      title: `Keyward REST ${dialect}`,
      version: "1.0.0",
      description: dialect === "v2"
        ? "Unkey-compatible REST v2: POST with a JSON body; answers in a {meta:{requestId}, data} envelope."
        : "Unkey-compatible REST v1: bare JSON payloads; GET with query parameters where Unkey's v1 uses GET.",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    security: [{ rootKey: [] }],
    paths,
    components: {
      schemas: { ...sorted(referenced(registry.components, { paths, errors })), ...errors.schemas },
      responses: errors.responses,
      headers: { RequestId: { description: "The request id (`req_...`), also in error bodies.", schema: { type: "string" } } },
      securitySchemes: {
        rootKey: { type: "http", scheme: "bearer", description: "A root key: `Authorization: Bearer <root key>`." },
      },
    },
  };
}

/** Retry-safe verification's header (README "Interfaces"); v2 and the RPCs also take it as the `idempotencyKey` field. */
const IDEMPOTENCY_HEADER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Makes a retry safe: the same key within the idempotency window (KEYWARD_IDEMPOTENCY_WINDOW_SECONDS, default "
    + "1 h) answers the first result again and spends nothing more; with a different request it is a 409.",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7e]+$" },
};

function operationOf(route: Route, shape: RouteShape, registry: SchemaRegistry, tools: ShapeTools, dialect: Dialect) {
  const { method } = route.operation;
  const generatedRequest = messageSchema(registry, method.input, "request");
  const request = shape.request ? shape.request(generatedRequest, tools) : generatedRequest;
  const operation: Record<string, unknown> = {
    operationId: operationId(route),
    tags: [route.path.slice(4).split(/[./]/)[0]],
    summary: `${method.parent.name}.${method.name}`,
  };
  const { access } = route.operation;
  const needs = access.public
    ? "Needs no root key."
    : `Needs a root key holding \`${access.resourceType}.*.${access.action}\` or the same action on the resource's id.`;
  const comment = registry.comments.get(`${method.parent.typeName}.${method.name}`);
  operation.description = comment ? `${comment}\n\n${needs}` : needs;
  if (access.public) operation.security = [];
  if (route.verb === "GET") {
    // Path variables (`{apiId}`) are path parameters, required; the rest of the input goes in the query.
    const inPath = new Set([...route.path.matchAll(/\{([a-zA-Z0-9_]+)\}/g)].map((m) => m[1]));
    const parameters = queryParameters(request).map((p) => (inPath.has(p.name as string) ? { ...p, in: "path", required: true } : p));
    if (parameters.length > 0) operation.parameters = parameters;
  } else {
    operation.requestBody = { required: true, content: { [JSON_TYPE]: { schema: request } } };
  }
  if (IDEMPOTENT.has(method.name)) operation.parameters = [IDEMPOTENCY_HEADER];
  const responses: Record<string, unknown> = {
    [shape.status ?? 200]: {
      description: "Success.",
      headers: { "x-request-id": { $ref: "#/components/headers/RequestId" } },
      content: { [JSON_TYPE]: { schema: successBody(route, shape, registry, tools, dialect) } },
    },
  };
  for (const status of errorStatuses(route)) responses[status] = { $ref: `#/components/responses/${status}` };
  operation.responses = responses;
  return operation;
}

/** The 200 body: the dialect's payload, in the v2 envelope on v2 (lists put their items in `data`, pagination beside). */
function successBody(route: Route, shape: RouteShape, registry: SchemaRegistry, tools: ShapeTools, dialect: Dialect): JsonSchema {
  const output = route.operation.method.output;
  const field = route.responseField ? output.fields.find((f) => f.jsonName === route.responseField) : undefined;
  const generated = field ? fieldSchema(registry, field, "response") : messageSchema(registry, output, "response");
  const payload = shape.response ? shape.response(generated, tools) : generated;
  if (dialect === "v1") return payload;
  const meta = { $ref: "#/components/schemas/Meta" };
  const list = !field && output.fields.some((f) => f.jsonName === "pagination");
  if (list) {
    const items = (payload.properties as Record<string, JsonSchema>).data;
    return object({ meta, data: items, pagination: tools.field(output, "pagination", "response") }, ["meta", "data", "pagination"]);
  }
  return object({ meta, data: payload }, ["meta", "data"]);
}

/** A GET's input as query parameters: every scalar (or list of scalars) property of the request schema. */
function queryParameters(request: JsonSchema): JsonSchema[] {
  const properties = (request.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((request.required ?? []) as string[]);
  return Object.entries(properties)
    .filter(([, schema]) => schema.$ref === undefined && schema.type !== "object")
    .map(([name, schema]) => ({
      name, in: "query", required: required.has(name), schema,
      ...(schema.type === "array" ? { style: "form", explode: true } : {}),
    }));
}

function documentOperation(dialect: Dialect) {
  return {
    operationId: "openapi",
    tags: ["openapi"],
    summary: `This OpenAPI document of REST ${dialect}.`,
    security: [],
    responses: {
      200: {
        description: "The document (cacheable).",
        headers: { "x-request-id": { $ref: "#/components/headers/RequestId" } },
        content: { [JSON_TYPE]: { schema: { type: "object", required: ["openapi", "paths"] } } },
      },
    },
  };
}

/**
 * `keys.createKey`, `liveness`; the legacy v1 routes `/v1/keys`, `/v1/keys/verify` and `/v1/apis/{apiId}/keys` by
 * their RPC name.
 */
function operationId(route: Route): string {
  const tail = route.path.slice(4);
  if (tail.includes("{")) return `legacy.${route.operation.method.localName}`;
  return tail.startsWith("keys") && !tail.includes(".") ? `legacy.${route.operation.method.localName}` : tail;
}

export function object(properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema {
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** The components `root` refers to, directly or through other components (shapes may replace generated ones). */
function referenced(components: Record<string, JsonSchema>, root: unknown): Record<string, JsonSchema> {
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== "object" || value === null) return;
    for (const [key, item] of Object.entries(value)) {
      const name = key === "$ref" && typeof item === "string" ? item.replace("#/components/schemas/", "") : undefined;
      if (name !== undefined && name in components && !used.has(name)) {
        used.add(name);
        visit(components[name]);
      } else visit(item);
    }
  };
  visit(root);
  return Object.fromEntries(Object.entries(components).filter(([name]) => used.has(name)));
}

function sorted(components: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(components).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
