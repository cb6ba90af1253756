/** One line of an import file: the key it holds, or why it holds none. `bytes` counts the line and its newline. */
export type KeyLine =
  | { line: number; text: string; bytes: number; key: Record<string, unknown> }
  | { line: number; text: string; bytes: number; error: string };

/**
 * The keys of a JSON-lines import file, line by line: each line one JSON object; blank lines and `#` comments
 * (what a failed-lines file adds) skipped. A line that is not a JSON object is a KeyLine with its error, so the
 * import reports it and goes on. Reads lazily: memory stays flat however long the file.
 */
export async function* keyLinesOf(lines: AsyncIterable<string>): AsyncGenerator<KeyLine | { skipped: number }> {
  let line = 0;
  for await (const text of lines) {
    line++;
    const bytes = Buffer.byteLength(text) + 1;
    const trimmed = text.trim();
    if (trimmed === "" || trimmed.startsWith("#")) {
      yield { skipped: bytes };
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      yield { line, text, bytes, error: `not valid JSON (${(error as Error).message})` };
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      yield { line, text, bytes, error: "not a JSON object" };
      continue;
    }
    yield { line, text, bytes, key: value as Record<string, unknown> };
  }
}

/** The keys' positions a refusal names (`keys[3].hash`, `body.keys[12]`), with the message for each. */
export function keyIndexesNamed(violations: readonly { location: string; message: string }[]): Map<number, string> {
  const named = new Map<number, string>();
  for (const v of violations) {
    const match = /(?:^|\.)keys\[(\d+)\](?:\.(.*))?$/.exec(v.location);
    if (!match) continue;
    const index = Number(match[1]);
    const field = match[2] ? `${match[2]}: ` : "";
    named.set(index, named.has(index) ? `${named.get(index)}; ${field}${v.message}` : `${field}${v.message}`);
  }
  return named;
}
