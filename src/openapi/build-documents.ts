import { getOption, type DescMethodUnary, type DescService } from "@bufbuild/protobuf";
import { access } from "../../gen/keyward/v1/options_pb.js";
import type { Operation } from "../services/operation.js";
import { routesOf } from "../transport/rest/routes.js";
import { buildOpenApi, type Dialect } from "./document.js";
import type { JsonSchema } from "./json-schema.js";
import { DOCUMENT_PATHS } from "../transport/rest/document-paths.js";
import { v1RequestRules, v1Shapes } from "./v1-shapes.js";
import { v2RequestRules, v2Shapes } from "./v2-shapes.js";


/**
 * The OpenAPI documents of REST v1 and v2 for `services`: the same HTTP bindings (routesOf) and access options the
 * server reads, so the documents describe exactly the routes it serves; `comments` (proto-comments.ts) become
 * descriptions. Deterministic: proto order throughout.
 */
export function buildDocuments(services: DescService[], comments = new Map<string, string>()): Record<Dialect, JsonSchema> {
  const routes = routesOf(services.flatMap(describedOperations));
  const build = (dialect: Dialect, shapes: typeof v1Shapes, requestRules: Record<string, JsonSchema>) =>
    buildOpenApi({ dialect, routes, shapes, requestRules, comments, documentPaths: [DOCUMENT_PATHS[dialect]] });
  return { v1: build("v1", v1Shapes, v1RequestRules), v2: build("v2", v2Shapes, v2RequestRules) };
}

/** The operations of a service as the route table needs them: method and access, no handler. */
function describedOperations(service: DescService): Operation[] {
  return service.methods.map((method) => ({
    method: method as DescMethodUnary,
    access: getOption(method, access),
    handler: () => Promise.reject(new Error("documentation only")),
  }));
}
