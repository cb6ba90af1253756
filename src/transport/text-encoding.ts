import { configureTextEncoding, getTextEncoding } from "@bufbuild/protobuf/wire";

/**
 * Makes protobuf-es encode strings with Buffer.from instead of TextEncoder.encode: on Node 20 the latter costs about
 * 0.7 µs per short string (a fresh ArrayBuffer each time) against 0.09 µs, and a verification answer holds half a
 * dozen strings. Decoding keeps TextDecoder, which is as fast. Process-wide and idempotent.
 */
export function useFastTextEncoding(): void {
  const standard = getTextEncoding();
  configureTextEncoding({
    encodeUtf8: (text: string) => Buffer.from(text, "utf8"),
    decodeUtf8: standard.decodeUtf8,
    checkUtf8: standard.checkUtf8,
  });
}
