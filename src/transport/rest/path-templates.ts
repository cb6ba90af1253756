import type { Route } from "./routes.js";

/** A route bound to a templated path (`/v1/apis/{apiId}/keys`) and how to read its variables from a request path. */
export interface TemplateRoute {
  /** The bound path, as written in the proto; also the key of the route's dialect mapping. */
  path: string;
  verbs: Map<string, Route>;
  /** The request path's variables as input fields (by JSON name), or undefined when the path does not match. */
  match(pathname: string): Record<string, string> | undefined;
}

/**
 * Compiles the templated bindings among `routes` (google.api.http path variables, single segments only: the legacy
 * v1 routes need no more). A variable names a field of the input message by its JSON name (routes.ts rewrites the
 * proto's); its value fills that field, so the pipeline validates it like any other input. Exact paths are left to the router's own map.
 */
export function templateRoutes(routes: Route[]): TemplateRoute[] {
  const byPath = new Map<string, TemplateRoute>();
  for (const route of routes) {
    if (!route.path.includes("{")) continue;
    let template = byPath.get(route.path);
    if (!template) {
      template = compile(route);
      byPath.set(route.path, template);
    }
    template.verbs.set(route.verb, route);
  }
  return [...byPath.values()];
}

function compile(route: Route): TemplateRoute {
  const names: string[] = [];
  const pattern = route.path.split("/").map((segment) => {
    const variable = /^\{([a-zA-Z0-9_]+)\}$/.exec(segment);
    if (!variable) {
      if (segment.includes("{")) throw new Error(`${route.path}: only whole-segment variables are supported`);
      return segment.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
    }
    const field = route.operation.method.input.fields.find((f) => f.jsonName === variable[1]);
    if (!field || field.fieldKind !== "scalar") throw new Error(`${route.path}: {${variable[1]}} names no scalar input field`);
    names.push(field.jsonName);
    return "([^/]+)";
  });
  const regex = new RegExp(`^${pattern.join("/")}$`);
  return {
    path: route.path,
    verbs: new Map(),
    match(pathname) {
      const found = regex.exec(pathname);
      if (!found) return undefined;
      const values: Record<string, string> = {};
      names.forEach((name, i) => {
        values[name] = safeDecode(found[i + 1]);
      });
      return values;
    },
  };
}

/** A malformed escape stays as sent: validation then refuses the value, never a 500. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
