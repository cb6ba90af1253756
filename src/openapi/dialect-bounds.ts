import { CreditsCostSchema, RatelimitConfigSchema, RatelimitRequestSchema } from "../../gen/keyward/v1/keys_pb.js";
import type { JsonSchema } from "./json-schema.js";
import type { ShapeTools } from "./document.js";
import { withProperty } from "./v1-records.js";

/**
 * The request bounds of src/transport/rest/unkey-bounds.ts (and the v1 checks beside it) as schema changes, so the
 * documents promise exactly what the dialects accept.
 */

type Schemas = Record<string, JsonSchema>;

/** `name` of at least 3 characters in every item of the `ratelimits` array (kept nullable where it is). */
function ratelimitItems(schema: JsonSchema, item: JsonSchema): JsonSchema {
  const properties = schema.properties as Schemas;
  if (!properties.ratelimits) return schema;
  return withProperty(schema, "ratelimits", (list) => ({ ...list, items: item }));
}

function namedAtLeast3(t: ShapeTools, component: string, message: typeof RatelimitConfigSchema | typeof RatelimitRequestSchema): JsonSchema {
  return t.component(component, () => withProperty(t.inline(message, "request"), "name", (name) => ({ ...name, minLength: 3 })));
}

/** v2 createKey, updateKey, createIdentity, updateIdentity: limit names ≥ 3; `externalId` of Unkey v2's characters. */
export function v2KeyOrIdentityWrite(generated: JsonSchema, t: ShapeTools): JsonSchema {
  const properties = generated.properties as Schemas;
  const withPattern = properties.externalId
    ? withProperty(generated, "externalId", (id) => ({ ...id, pattern: "^[a-zA-Z0-9_.-]+$" }))
    : generated;
  return ratelimitItems(withPattern, namedAtLeast3(t, "V2RatelimitConfigInput", RatelimitConfigSchema));
}

/** v2 verifyKey: `credits` needs `cost`; requested limit names ≥ 3. */
export function v2VerifyKeyBounds(generated: JsonSchema, t: ShapeTools): JsonSchema {
  const credits = t.component("V2CreditsCostInput", () => ({ ...t.inline(CreditsCostSchema, "request"), required: ["cost"] }));
  const withCredits = withProperty(generated, "credits", (property) => {
    const { $ref: _, ...rest } = property;
    return { ...rest, ...credits };
  });
  return ratelimitItems(withCredits, namedAtLeast3(t, "V2VerifyRatelimitInput", RatelimitRequestSchema));
}

/** At least `min` characters in the string property `name`. */
export const atLeast = (name: string, min: number) => (schema: JsonSchema): JsonSchema =>
  withProperty(schema, name, (property) => ({ ...property, minLength: Math.max(min, (property.minLength as number) ?? 0) }));

/** Unkey v1 descriptions: "" or 3-256 characters. */
export const v1Description = (schema: JsonSchema): JsonSchema =>
  withProperty(schema, "description", ({ description }) => ({
    ...(description ? { description } : {}),
    anyOf: [{ type: "string", maxLength: 0 }, { type: "string", minLength: 3, maxLength: 256 }],
  }));
