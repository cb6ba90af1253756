import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { keyLinesOf, type KeyLine } from "./key-lines.js";
import type { ImportTally } from "./progress.js";

/** What one call made of a batch: positions are the batch's. */
export type BatchResult =
  /** Accepted: every key imported but those in `failed`, each with its reason. */
  | { imported: number; failed: Map<number, string> }
  /** Refused whole (bad input), nothing written; `named` are the keys the refusal names. */
  | { refused: string; named: Map<number, string> };

/** Where a batch of keys goes: an import call in-process or through a server. Throws when the import cannot go on. */
export interface ImportSink {
  submit(keys: Record<string, unknown>[]): Promise<BatchResult>;
}

export interface ImportSummary {
  /** Key lines read (blank and comment lines not counted). */
  lines: number;
  imported: number;
  failed: number;
  /** Set when some line failed: the file that holds them. */
  failedFile?: string;
}

type KeyedLine = Extract<KeyLine, { key: unknown }>;

/** Keys per call are bounded by count and by size, so a call stays well inside a server's 1 MiB body limit. */
const MAX_BATCH_BYTES = 512 * 1024;

/**
 * Imports a JSON-lines file batch by batch through `sink`. A refused batch loses the keys it names (they go to the
 * failed file with the reason) and is sent again without them; one that names none fails whole. Every line ends
 * imported or in `failedFile`, after a `# line N: reason` comment, so the fixed file can be imported again as it is.
 * Stops (throws) when the sink does, having reported nothing for the unsent lines.
 */
export async function importFile(options: {
  file: string;
  failedFile: string;
  sink: ImportSink;
  batchSize: number;
  now: () => number;
  onProgress: (tally: ImportTally) => void;
}): Promise<ImportSummary & { tally: ImportTally }> {
  const tally: ImportTally = { bytesRead: 0, totalBytes: (await stat(options.file)).size, imported: 0, failed: 0, startedAt: options.now() };
  let lines = 0;
  let failedOut: WriteStream | undefined;
  // A batch's failures are written once it is done, in line order, whatever order its calls reported them in.
  let failures: { line: KeyLine; reason: string }[] = [];
  const failLine = (line: KeyLine, reason: string) => {
    failures.push({ line, reason: reason.replace(/\s+/g, " ") });
    tally.failed++;
  };
  const writeFailures = async () => {
    if (failures.length === 0) return;
    failedOut ??= createWriteStream(options.failedFile, { encoding: "utf8" });
    const text = failures.sort((a, b) => a.line.line - b.line.line).map((f) => `# line ${f.line.line}: ${f.reason}\n${f.line.text}\n`).join("");
    failures = [];
    if (!failedOut.write(text)) await once(failedOut, "drain");
  };

  const send = async (batch: KeyedLine[]) => {
    let pending = batch;
    while (pending.length > 0) {
      const result = await options.sink.submit(pending.map((l) => l.key));
      const sent = pending;
      // Reasons name keys by their place in the call ("repeats the hash of keys[0]"); the file's reader knows lines.
      const fail = (line: KeyLine, reason: string) =>
        failLine(line, reason.replace(/\bkeys\[(\d+)\]/g, (whole, i: string) => (sent[Number(i)] ? `line ${sent[Number(i)].line}` : whole)));
      if ("imported" in result) {
        tally.imported += result.imported;
        for (const [index, reason] of result.failed) fail(pending[index], reason);
        break;
      }
      if (result.named.size === 0) {
        for (const line of pending) fail(line, result.refused);
        break;
      }
      for (const [index, reason] of result.named) if (pending[index]) fail(pending[index], reason);
      pending = pending.filter((_, i) => !result.named.has(i));
    }
    options.onProgress(tally);
  };

  const input = createReadStream(options.file, { encoding: "utf8" });
  const reader = createInterface({ input, crlfDelay: Infinity });
  try {
    let batch: KeyedLine[] = [];
    let batchBytes = 0;
    for await (const item of keyLinesOf(reader)) {
      tally.bytesRead += "skipped" in item ? item.skipped : item.bytes;
      if ("skipped" in item) continue;
      lines++;
      if ("error" in item) {
        failLine(item, item.error);
        continue;
      }
      if (batch.length >= options.batchSize || (batch.length > 0 && batchBytes + item.bytes > MAX_BATCH_BYTES)) {
        await send(batch);
        await writeFailures();
        batch = [];
        batchBytes = 0;
      }
      batch.push(item);
      batchBytes += item.bytes;
    }
    if (batch.length > 0) await send(batch);
    await writeFailures();
  } finally {
    reader.close();
    input.destroy();
    if (failedOut) {
      failedOut.end();
      await once(failedOut, "close");
    }
  }
  return { lines, imported: tally.imported, failed: tally.failed, failedFile: failedOut ? options.failedFile : undefined, tally };
}
