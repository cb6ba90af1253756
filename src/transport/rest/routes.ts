import { getOption } from "@bufbuild/protobuf";
import { http } from "../../../gen/google/api/annotations_pb.js";
import type { HttpRule } from "../../../gen/google/api/http_pb.js";
import type { Operation } from "../../services/operation.js";
import type { Dialect } from "./errors.js";

export interface Route {
  verb: "GET" | "POST";
  path: string;
  dialect: Dialect;
  operation: Operation;
  /** The JSON name of the response field that is the whole REST payload (`response_body`), if any. */
  responseField?: string;
}

/** Reads every operation's `google.api.http` binding (and its additional bindings) into REST routes. */
export function routesOf(operations: Operation[]): Route[] {
  return operations.flatMap((operation) => {
    const rule = getOption(operation.method, http);
    return [rule, ...rule.additionalBindings].flatMap((binding) => routeOf(binding, operation));
  });
}

function routeOf(binding: HttpRule, operation: Operation): Route[] {
  const { case: verb, value } = binding.pattern;
  if (verb !== "get" && verb !== "post") return [];
  // Path variables name proto fields (`{api_id}`); the route, its mapping and the documents use JSON names (`{apiId}`).
  const path = (value as string).replace(/\{([a-z0-9_]+)\}/g, (whole, name: string) => {
    const field = operation.method.input.fields.find((f) => f.name === name);
    if (!field) throw new Error(`${value}: {${name}} names no input field`);
    return `{${field.jsonName}}`;
  });
  const responseField = binding.responseBody
    ? operation.method.output.fields.find((f) => f.name === binding.responseBody)?.jsonName
    : undefined;
  if (binding.responseBody && !responseField) throw new Error(`${path}: response_body names no field`);
  return [{ verb: verb === "get" ? "GET" : "POST", path, dialect: path.startsWith("/v1/") ? "v1" : "v2", operation, responseField }];
}
