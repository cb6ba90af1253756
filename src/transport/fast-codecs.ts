import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { fastCodecs } from "../../gen/keyward/v1/keys_fast.js";

/**
 * A generated codec (scripts/protoc-gen-keyward-fast): `encode` writes what toBinary writes, from the message or its
 * init shape, leaving `reserve` bytes free in front; `decode` builds what fromBinary builds, or answers undefined where
 * the fast path stops, and the caller takes protobuf-es's path; `valid`, where generated, spares a valid request the
 * protovalidate walk.
 */
export interface FastCodec {
  encode(message: object, reserve?: number, alloc?: (size: number) => Uint8Array): Uint8Array;
  decode(bytes: Uint8Array): MessageShape<DescMessage> | undefined;
  /** From parsed REST JSON, what checkJson (REST dialect) and fromJson make of it, or undefined: take that path. */
  json(value: unknown, allowUnknown: boolean): MessageShape<DescMessage> | undefined;
  /** A message or init object as REST JSON, the object rest-json.ts builds, or undefined: build it there. */
  restJson(message: object): Record<string, unknown> | undefined;
  /** `JSON.stringify` of `restJson`'s object, written directly; undefined exactly where `restJson` is. */
  restJsonText(message: object): string | undefined;
  /** True only where protovalidate finds nothing wrong with the message; false: ask protovalidate. */
  valid?: (message: object) => boolean;
}

const bySchema = new Map<DescMessage, FastCodec>(fastCodecs.map((codec) => [codec.schema, codec as unknown as FastCodec]));

/** The generated codec of a message type, if buf.gen.yaml lists it (or a message reaching it). */
export function fastCodecOf(schema: DescMessage): FastCodec | undefined {
  return bySchema.get(schema);
}
