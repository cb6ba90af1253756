import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import fc from "fast-check";

type Schema = Record<string, any>;

/** The committed OpenAPI document of a dialect (what the server serves). */
export function committedDocument(dialect: "v1" | "v2"): Schema {
  return JSON.parse(readFileSync(new URL(`../../gen/openapi/${dialect}.json`, import.meta.url), "utf8"));
}

/** One documented operation: its verb, path, request schema (body or query) and response schemas by status. */
export interface DocumentedOperation {
  verb: "GET" | "POST";
  path: string;
  public: boolean;
  /** GET: an object schema of the query parameters; POST: the body schema. */
  request: Schema;
  responses: Map<number, Schema>;
}

/** Every operation of a document, its `$ref`ed responses resolved. */
export function operationsOf(document: Schema): DocumentedOperation[] {
  const out: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries<Schema>(document.paths)) {
    for (const [verb, operation] of Object.entries<Schema>(item)) {
      const responses = new Map<number, Schema>();
      for (const [status, response] of Object.entries<Schema>(operation.responses)) {
        const resolved = response.$ref ? document.components.responses[response.$ref.split("/").pop()] : response;
        responses.set(Number(status), resolved.content["application/json"].schema);
      }
      const parameters: Schema[] = operation.parameters ?? [];
      const request = verb === "get"
        ? {
          type: "object",
          properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
          required: parameters.filter((p) => p.required).map((p) => p.name),
        }
        : operation.requestBody.content["application/json"].schema;
      out.push({ verb: verb.toUpperCase() as "GET" | "POST", path, public: Array.isArray(operation.security) && operation.security.length === 0, request, responses });
    }
  }
  return out;
}

/**
 * An Ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect) that knows the document's components, so any schema of the
 * document compiles as it stands.
 */
export function documentValidator(document: Schema, dialect: string) {
  const base = `https://keyward.invalid/${dialect}`;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  const absolute = (schema: unknown) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${base}#/$defs/`)) as Schema;
  ajv.addSchema({ $id: base, $defs: absolute(document.components.schemas) });
  const cache = new Map<Schema, ValidateFunction>();
  return {
    /** The validation errors of `value` against `schema` (empty when valid). */
    errors(schema: Schema, value: unknown): string[] {
      let validate = cache.get(schema);
      if (!validate) cache.set(schema, (validate = ajv.compile(absolute(schema))));
      return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
    },
    resolve(schema: Schema): Schema {
      return schema.$ref ? document.components.schemas[schema.$ref.split("/").pop()] : schema;
    },
  };
}

type Validator = ReturnType<typeof documentValidator>;

/**
 * Values valid under a request schema of the document (the subset of JSON Schema the generator writes: objects,
 * arrays, strings with lengths/patterns/enums, bounded integers, booleans, nullable types, `anyOf` of branches or of
 * required names). `hints` name values to prefer for a property (seeded ids), used when valid there; a hint of null
 * leaves an optional property out.
 */
export function arbitraryOf(schema: Schema, validator: Validator, hints: Record<string, unknown[] | null> = {}, depth = 0): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    depth += 1;
    schema = validator.resolve(schema);
    // A recursive schema (the v1 permission query) ends in its first, non-recursive branch.
    if (depth > 3 && schema.anyOf) schema = schema.anyOf[0];
  }
  const of = (s: Schema): fc.Arbitrary<unknown> => arbitraryOf(s, validator, hints, depth);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type: string) => of({ ...schema, type })));
  if (schema.anyOf && !schema.properties) return fc.oneof(...schema.anyOf.map(of));
  switch (schema.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case "integer":
      return integers(schema);
    case "string":
      return strings(schema);
    case "array":
      return fc.array(of(schema.items ?? {}), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, (schema.minItems ?? 0) + 3) });
    case "object":
      if (!schema.properties) return fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.boolean()), { maxKeys: 3 });
      return objects(schema, validator, hints, depth);
    default:
      return fc.string({ maxLength: 12 }); // any JSON value: a string is one
  }
}

function objects(schema: Schema, validator: Validator, hints: Record<string, unknown[] | null>, depth: number): fc.Arbitrary<unknown> {
  // `anyOf` beside the properties: each branch narrows some properties (false: must be absent) or requires some.
  const branches: Schema[] = schema.anyOf ?? [{}];
  return fc.constantFrom(...branches).chain((branch) => {
    const properties: Record<string, Schema> = { ...schema.properties };
    for (const [name, narrowed] of Object.entries<Schema | false>(branch.properties ?? {})) {
      if (narrowed === false) delete properties[name];
      else properties[name] = { ...validator.resolve(properties[name] ?? {}), ...narrowed };
    }
    const required = new Set([...(schema.required ?? []), ...(branch.required ?? [])]);
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, property] of Object.entries(properties)) {
      if (hints[name] === null && !required.has(name)) continue; // a hint of null: leave the property out
      const generated = arbitraryOf(property, validator, hints, depth);
      const good = (hints[name] ?? []).filter((value) => validator.errors(property, value).length === 0);
      record[name] = good.length === 0 ? generated
        : fc.oneof({ arbitrary: fc.constantFrom(...good), weight: 3 }, { arbitrary: generated, weight: 1 });
    }
    // Optional properties are left out at random; one that needs others (dependentRequired) goes without them.
    return fc.record(record, { requiredKeys: [...required].filter((name) => name in record) }).map((value: Record<string, unknown>) => {
      for (const [name, needs] of Object.entries<string[]>(schema.dependentRequired ?? {})) {
        if (name in value && needs.some((other) => !(other in value))) delete value[name];
      }
      return value;
    });
  });
}

/**
 * Requests valid under the documented schema: generated from it, then checked against it by Ajv, which also holds
 * the generator to the rules it does not build in (`allOf`, rules inside nested `anyOf`).
 */
export function validRequests(schema: Schema, validator: Validator, hints: Record<string, unknown[] | null> = {}): fc.Arbitrary<unknown> {
  return arbitraryOf(schema, validator, hints).filter((value) => validator.errors(schema, value).length === 0);
}

function integers(schema: Schema): fc.Arbitrary<number> {
  const min = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : schema.minimum ?? -Number.MAX_SAFE_INTEGER;
  const max = schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : schema.maximum ?? Number.MAX_SAFE_INTEGER;
  const small = fc.integer({ min: Math.max(min, -1000), max: Math.min(max, Math.max(min, -1000) + 100_000) });
  const any = fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
  return fc.oneof({ arbitrary: small, weight: 3 }, { arbitrary: any, weight: 1 }, fc.constantFrom(min, max));
}

function strings(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 24, minLength + 24);
  if (!schema.pattern) return fc.string({ minLength, maxLength });
  const pattern = new RegExp(schema.pattern);
  return fc.stringMatching(pattern, { size: "small" })
    .map((s) => (s.length < minLength ? s.padEnd(minLength, s.at(-1) ?? "a") : s))
    .filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity) && pattern.test(s));
}
