import { create, ScalarType, toJson, type DescField, type DescMessage, type DescService, type Message } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ApisService } from "../../gen/keyward/v1/apis_pb.js";
import { IdentitiesService } from "../../gen/keyward/v1/identities_pb.js";
import { KeysService, VerifyKeyResponseSchema } from "../../gen/keyward/v1/keys_pb.js";
import { LivenessService } from "../../gen/keyward/v1/liveness_pb.js";
import { PermissionsService } from "../../gen/keyward/v1/permissions_pb.js";
import { RatelimitService } from "../../gen/keyward/v1/ratelimits_pb.js";
import { ListRootKeysResponseSchema, RootKeysService } from "../../gen/keyward/v1/root_keys_pb.js";
import { WorkspacesService } from "../../gen/keyward/v1/workspaces_pb.js";
import { restJsonText, toRestJson } from "../../src/transport/rest/rest-json.js";
import { v2Envelope, v2EnvelopeText } from "../../src/transport/rest/v2-dialect.js";
import { fastCodecOf } from "../../src/transport/fast-codecs.js";
import { sampleSchemas } from "./sample-schema.js";

const { sample } = sampleSchemas();

describe("toRestJson", () => {
  it("writes int64 fields as JSON numbers at every depth: fields, lists, nested and repeated messages, maps", () => {
    const message = create(sample, {
      big: 1_893_456_000_000n,
      unsignedBig: 7n,
      bigs: [1n, -2n],
      inner: { label: "x", count: 3n },
      inners: [{ count: 4n }, { count: 5n }],
      counts: { a: 6n },
      byName: { b: { count: 8n } },
    } as never);
    const json = toRestJson(sample, message);
    expect(json).toMatchObject({
      big: 1_893_456_000_000,
      unsignedBig: 7,
      bigs: [1, -2],
      inner: { label: "x", count: 3 },
      inners: [{ label: "", count: 4 }, { label: "", count: 5 }],
      counts: { a: 6 },
      byName: { b: { label: "", count: 8 } },
    });
  });

  it("always emits implicit fields (empty strings, zeros, false, empty lists)", () => {
    const json = toRestJson(sample, create(sample));
    expect(json).toMatchObject({ text: "", flag: false, small: 0, big: 0, ratio: 0, tags: [], bigs: [], counts: {} });
  });

  it("emits the product list shape: createdAt in ms as numbers, expires only when set", () => {
    const message = create(ListRootKeysResponseSchema, {
      data: [{ keyId: "key_1", start: "kw_root_abcd", permissions: ["api.*.read_api"], createdAt: 1_700_000_000_000n, expires: 1_800_000_000_000n }],
      pagination: { hasMore: true, cursor: "abc" },
    });
    expect(toRestJson(ListRootKeysResponseSchema, message)).toEqual({
      data: [{
        keyId: "key_1", start: "kw_root_abcd", permissions: ["api.*.read_api"], createdAt: 1_700_000_000_000, expires: 1_800_000_000_000,
      }],
      pagination: { hasMore: true, cursor: "abc" },
    });
  });

  it("accepts ±(2^53 - 1) and throws for anything beyond, wherever it sits", () => {
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    expect(toRestJson(sample, create(sample, { big: max, bigs: [-max] } as never))).toMatchObject({
      big: Number.MAX_SAFE_INTEGER, bigs: [-Number.MAX_SAFE_INTEGER],
    });
    for (const init of [{ big: max + 1n }, { bigs: [0n, -(max + 1n)] }, { inner: { count: 2n ** 60n } }, { counts: { a: 2n ** 53n } },
      { byName: { b: { count: 2n ** 63n - 1n } } }, { unsignedBig: 2n ** 64n - 1n }]) {
      expect(() => toRestJson(sample, create(sample, init as never))).toThrow(/exceeds 2\^53/);
    }
  });

  it("gives protobuf-es' own JSON (64-bit values as numbers) for every response of every service, empty and full", () => {
    const services: DescService[] = [
      ApisService, IdentitiesService, KeysService, LivenessService, PermissionsService, RatelimitService, RootKeysService, WorkspacesService,
    ];
    const schemas = [sample, ...services.flatMap((service) => service.methods.map((method) => method.output))];
    expect(schemas.length).toBeGreaterThan(40);
    for (const schema of schemas) {
      for (const message of [create(schema), create(schema, fullInit(schema, 0) as never)]) {
        expect(toRestJson(schema, message), schema.typeName).toEqual(referenceJson(schema, message));
      }
    }
  });

  it("gives the same JSON for a handler's init object as for the message made from it: empty, full, every other field", () => {
    const services: DescService[] = [
      ApisService, IdentitiesService, KeysService, LivenessService, PermissionsService, RatelimitService, RootKeysService, WorkspacesService,
    ];
    const schemas = [sample, ...services.flatMap((service) => service.methods.map((method) => method.output))];
    for (const schema of schemas) {
      const full = fullInit(schema, 0);
      const sparse = Object.fromEntries(Object.entries(full).filter((_, i) => i % 2 === 1));
      for (const init of [{}, full, sparse]) {
        expect(toRestJson(schema, init as never), schema.typeName).toEqual(referenceJson(schema, create(schema, init as never)));
      }
    }
  });
});

describe("REST answers written as text", () => {
  it("restJsonText and v2EnvelopeText are JSON.stringify of toRestJson and v2Envelope, for every response; lists have no text envelope", () => {
    const services: DescService[] = [
      ApisService, IdentitiesService, KeysService, LivenessService, PermissionsService, RatelimitService, RootKeysService, WorkspacesService,
    ];
    const schemas = [sample, ...services.flatMap((service) => service.methods.map((method) => method.output))];
    let texts = 0;
    for (const schema of schemas) {
      const full = fullInit(schema, 0);
      const sparse = Object.fromEntries(Object.entries(full).filter((_, i) => i % 2 === 1));
      for (const init of [{}, full, sparse, create(schema, full as never)]) {
        expect(restJsonText(schema, init as never), schema.typeName).toBe(JSON.stringify(toRestJson(schema, init as never)));
        const text = v2EnvelopeText(schema, init, "req_1ChUy8nd78mmVQE37v6yG8");
        const list = schema.fields.some((f) => f.jsonName === "pagination");
        expect(text === undefined, schema.typeName).toBe(list);
        if (text !== undefined) texts++;
        if (text !== undefined) expect(text).toBe(JSON.stringify(v2Envelope(schema, toRestJson(schema, init as never), "req_1ChUy8nd78mmVQE37v6yG8")));
      }
    }
    expect(texts).toBeGreaterThan(0);
  });

  it("writes a verification answer from the generated text encoder, byte for byte the object's JSON", () => {
    const answer = {
      valid: true, code: "VALID", keyId: "key_1", name: "n \"quoted\" é", meta: { plan: "pro", n: [1, { a: null }] }, credits: 9n, enabled: true,
      permissions: ["a.b"], roles: [], identity: { id: "id_1", externalId: "ext", meta: {}, ratelimits: [] },
      ratelimits: [{ exceeded: false, id: "rl_1", name: "rl", limit: 10n, remaining: 9n, reset: 1700000000000n, duration: 60000n, autoApply: true }],
    };
    expect(fastCodecOf(VerifyKeyResponseSchema)?.restJsonText(answer)).toBeDefined();
    expect(v2EnvelopeText(VerifyKeyResponseSchema, answer, "req_x"))
      .toBe(JSON.stringify({ meta: { requestId: "req_x" }, data: toRestJson(VerifyKeyResponseSchema, answer as never) }));
  });
});

/** The reference: protobuf-es' toJson with implicit fields, 64-bit strings turned into numbers. */
function referenceJson(schema: DescMessage, message: Message): unknown {
  const walk = (json: unknown): unknown => {
    if (Array.isArray(json)) return json.map(walk);
    if (json !== null && typeof json === "object") return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, walk(v)]));
    return json;
  };
  const numbers = (desc: DescMessage, json: Record<string, unknown>): Record<string, unknown> => {
    for (const field of desc.fields) {
      const value = json[field.jsonName];
      if (value === undefined || value === null) continue;
      const int64 = (field.fieldKind === "scalar" || field.fieldKind === "list" || field.fieldKind === "map")
        && "scalar" in field && field.scalar !== undefined && [ScalarType.INT64, ScalarType.UINT64].includes(field.scalar);
      if (int64 && field.fieldKind === "scalar") json[field.jsonName] = Number(value);
      else if (int64 && field.fieldKind === "list") json[field.jsonName] = (value as string[]).map(Number);
      else if (int64 && field.fieldKind === "map") json[field.jsonName] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, Number(v)]));
      else if (field.message && !field.message.typeName.startsWith("google.protobuf.")) {
        const nested = field.message;
        if (field.fieldKind === "message") numbers(nested, value as Record<string, unknown>);
        else if (field.fieldKind === "list") for (const item of value as Record<string, unknown>[]) numbers(nested, item);
        else for (const item of Object.values(value as Record<string, Record<string, unknown>>)) numbers(nested, item);
      }
    }
    return json;
  };
  return numbers(schema, walk(toJson(schema, message, { alwaysEmitImplicit: true })) as Record<string, unknown>);
}

/** An init with every field set to a value that is not its default, nested messages two levels deep. */
function fullInit(schema: DescMessage, depth: number): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  for (const field of schema.fields) {
    const value = fieldValue(field, depth);
    if (value !== undefined) init[field.localName] = value;
  }
  return init;
}

function fieldValue(field: DescField, depth: number): unknown {
  const scalar = (type: ScalarType, n: number): unknown => {
    switch (type) {
      case ScalarType.STRING: return `${field.name}-${n}`;
      case ScalarType.BOOL: return true;
      case ScalarType.BYTES: return new Uint8Array([n, 251, 255, 191]); // "+", "/" and padding in base64
      case ScalarType.DOUBLE: case ScalarType.FLOAT: return n % 2 === 0 ? 1.5 : Number.NaN;
      case ScalarType.INT64: case ScalarType.UINT64: case ScalarType.SINT64: case ScalarType.FIXED64: case ScalarType.SFIXED64:
        return 1_700_000_000_000n + BigInt(n);
      default: return 40 + n;
    }
  };
  const message = (desc: DescMessage): unknown => {
    if (desc.typeName === "google.protobuf.Struct") return { a: 1, b: ["x", null, { c: true }] };
    if (desc.typeName === "google.protobuf.Value") return { kind: { case: "stringValue", value: "v" } };
    if (desc.typeName.startsWith("google.protobuf.")) return undefined;
    return depth < 2 ? fullInit(desc, depth + 1) : undefined;
  };
  switch (field.fieldKind) {
    case "scalar": return scalar(field.scalar, 1);
    case "enum": return field.enum.values[field.enum.values.length - 1]?.number;
    case "message": return message(field.message);
    case "list":
      if (field.listKind === "scalar") return [scalar(field.scalar, 2), scalar(field.scalar, 3)];
      if (field.listKind === "enum") return [field.enum.values[0]?.number, 99];
      return [message(field.message), message(field.message)].filter((m) => m !== undefined);
    case "map":
      if (field.mapKind === "scalar") return { k1: scalar(field.scalar, 4) };
      if (field.mapKind === "enum") return { k1: field.enum.values[0]?.number };
      return message(field.message) === undefined ? {} : { k1: message(field.message) };
  }
}
