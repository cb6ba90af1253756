import { appendFileSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { numberText } from "../../../gen/keyward_fast/wire.js";
import type { VerificationEvent } from "../ports/events.js";
import { writeAll } from "./journal-file.js";

/**
 * Event segments on disk: one JSON-lines file per hour of event time, named by the hour's start in unix ms
 * (`<dir>/events/1714568400000.jsonl`). The span is fixed rather than configurable so a segment's time range
 * follows from its name alone, whatever the configuration was when it was written.
 */
export const SEGMENT_MS = 3_600_000;
const NAME = /^(-?\d+)\.jsonl$/;
const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

export const segmentStart = (time: number): number => Math.floor(time / SEGMENT_MS) * SEGMENT_MS;
export const segmentFileName = (start: number): string => `${start}.jsonl`;

/** The start of the segment a file name denotes, or undefined for files that are not segments. */
export function parseSegmentFileName(name: string): number | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  const start = Number(match[1]);
  return Number.isSafeInteger(start) && start % SEGMENT_MS === 0 ? start : undefined;
}

/** One event as one line. Field order is fixed: readers rely on `"workspaceId":"..."` appearing verbatim. */
export function encodeEvent(event: VerificationEvent): string {
  return encodePlainEvent(event) ?? encodeAnyEvent(event);
}

/** Whether JSON.stringify writes the string as is between quotes: no quote, backslash, control character, surrogate. */
function plain(value: unknown): value is string {
  if (typeof value !== "string") return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * The text between `"time":…` and the tags of the last key's events (workspace, api, key, identity), checked once:
 * a batch holds mostly events of the same few keys, and the ring hands back the same string objects for them.
 */
const lastKey = { workspaceId: "", apiId: "", keyId: "", identityId: undefined as string | undefined, text: ',"workspaceId":"","apiId":"","keyId":"",' };

/** The key part of a line, `,"workspaceId":"…",…,` (identity included); undefined when a value needs escaping. */
function keyPart(workspaceId: unknown, apiId: unknown, keyId: unknown, identityId: unknown): string | undefined {
  if (workspaceId === lastKey.workspaceId && apiId === lastKey.apiId && keyId === lastKey.keyId && identityId === lastKey.identityId) {
    return lastKey.text;
  }
  if (!plain(workspaceId) || !plain(apiId) || !plain(keyId) || (identityId !== undefined && !plain(identityId))) return undefined;
  const identity = identityId === undefined ? "" : `"identityId":"${identityId}",`;
  const text = `,"workspaceId":"${workspaceId}","apiId":"${apiId}","keyId":"${keyId}",${identity}`;
  Object.assign(lastKey, { workspaceId, apiId, keyId, identityId, text });
  return text;
}

/**
 * The same bytes as encodeAnyEvent, built by hand for the shape every recorded event has (finite numbers, strings
 * needing no escape) without an object per event; undefined for any other.
 */
function encodePlainEvent(event: VerificationEvent): string | undefined {
  const { time, outcome, creditsSpent, latencyMs, requestId } = event;
  const list = event.tags ?? [];
  if (!finite(time) || !finite(creditsSpent) || !finite(latencyMs) || !plain(outcome) || !plain(requestId) || !Array.isArray(list)) {
    return undefined;
  }
  const key = keyPart(event.workspaceId, event.apiId, event.keyId, event.identityId);
  if (key === undefined) return undefined;
  let tags = "";
  for (let i = 0; i < list.length; i++) {
    const tag: unknown = list[i];
    if (!plain(tag)) return undefined;
    tags += i === 0 ? `"${tag}"` : `,"${tag}"`;
  }
  return `{"time":${numberText(time)}${key}"outcome":"${outcome}","tags":[${tags}],"creditsSpent":${numberText(creditsSpent)},` +
    `"latencyMs":${millisText(latencyMs)},` +
    `"requestId":"${requestId}"}\n`;
}

/**
 * numberText of a latency, written digit by digit when it is whole microseconds (as verifications record it): a
 * fraction's shortest digits are otherwise the costliest part of an event line. The unique decimal of at most three
 * fraction digits that denotes the value is exactly what JSON.stringify writes.
 */
function millisText(ms: number): string {
  const micros = Math.round(ms * 1000);
  if (micros / 1000 !== ms || micros < 0 || micros > MAX_FAST_MICROS) return numberText(ms);
  const fraction = micros % 1000;
  return numberText((micros - fraction) / 1000) + FRACTIONS[fraction];
}

const MAX_FAST_MICROS = 2 ** 31 - 1;
// ".001" … ".999" without trailing zeros, and "" for none.
const FRACTIONS = Array.from({ length: 1000 }, (_, i) => (i === 0 ? "" : `.${String(i).padStart(3, "0").replace(/0+$/, "")}`));

/** Any event, through JSON.stringify (throws for what JSON cannot hold, e.g. a cycle). */
export function encodeAnyEvent(event: VerificationEvent): string {
  return `${JSON.stringify({
    time: event.time,
    workspaceId: event.workspaceId,
    apiId: event.apiId,
    keyId: event.keyId,
    identityId: event.identityId,
    outcome: event.outcome,
    tags: event.tags ?? [],
    creditsSpent: event.creditsSpent,
    latencyMs: event.latencyMs,
    requestId: event.requestId,
  })}\n`;
}

/** The cheap pre-check for a line of this workspace: absent means the line cannot match. */
export const workspaceNeedle = (workspaceId: string): string => `"workspaceId":${JSON.stringify(workspaceId)},`;

/** Parses one line; a torn or foreign line gives undefined and is skipped by readers. */
export function decodeEvent(line: string): VerificationEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const event = value as VerificationEvent;
  const valid =
    typeof event.time === "number" &&
    typeof event.workspaceId === "string" &&
    typeof event.outcome === "string" &&
    Array.isArray(event.tags);
  return valid ? event : undefined;
}

/**
 * Streams the complete lines of a file to `onLine`, chunk by chunk, so a segment of any size reads in bounded
 * memory. A last line without its newline is passed too: a torn one fails to decode and is skipped by the caller.
 * A missing file (deleted by retention meanwhile) reads as empty.
 */
export async function readLines(path: string, onLine: (line: string) => void): Promise<void> {
  const file = await open(path, "r").catch((e) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
  if (!file) return;
  try {
    const buffer = Buffer.alloc(CHUNK);
    let carry = Buffer.alloc(0);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const data = carry.length ? Buffer.concat([carry, buffer.subarray(0, bytesRead)]) : buffer.subarray(0, bytesRead);
      let from = 0;
      for (let nl = data.indexOf(NEWLINE, from); nl >= 0; nl = data.indexOf(NEWLINE, from)) {
        if (nl > from) onLine(data.toString("utf8", from, nl));
        from = nl + 1;
      }
      carry = Buffer.from(data.subarray(from)); // copied: `buffer` is reused by the next read
    }
    if (carry.length) onLine(carry.toString("utf8"));
  } finally {
    await file.close();
  }
}

/** Number of newline-terminated lines in a file (0 when missing): a segment's event count for retention. */
export async function countLines(path: string): Promise<number> {
  const file = await open(path, "r").catch((e) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
  if (!file) return 0;
  try {
    const buffer = Buffer.alloc(CHUNK);
    let count = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) return count;
      const data = buffer.subarray(0, bytesRead);
      for (let i = data.indexOf(NEWLINE); i >= 0; i = data.indexOf(NEWLINE, i + 1)) count += 1;
    }
  } finally {
    await file.close();
  }
}

/** Whether a file is empty or ends with a newline, i.e. appending to it cannot glue onto a torn line. */
export async function endsCleanly(path: string): Promise<boolean> {
  const file = await open(path, "r").catch((e) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
  if (!file) return true;
  try {
    const { size } = await file.stat();
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    await file.read(last, 0, 1, size - 1);
    return last[0] === NEWLINE;
  } finally {
    await file.close();
  }
}

/**
 * Appends lines in one write (O_APPEND: bytes already in the file are never touched). Synchronous, as the journal's
 * appends are: one batch reaching the page cache costs less than a thread-pool round trip, and the batch's event
 * objects and lines then die in the stretch that made them instead of being promoted while a write is in flight.
 */
export const appendLines = (path: string, lines: string | Uint8Array): void => appendFileSync(path, lines, "utf8");

/**
 * appendLines for one file after another, keeping the current one open: the event store appends a slice of a batch
 * per turn, and opening and closing the segment by path for each slice cost more than writing it (CPU profile,
 * REST verification). The write itself runs on the thread pool: a synchronous one held the event loop ~30 µs per
 * 128-event slice. Its caller awaits each append before the next, and before releasing or closing the file.
 */
export function createSegmentAppender() {
  let current: { path: string; file: FileHandle } | undefined;
  const close = async (): Promise<void> => {
    if (!current) return;
    const { file } = current;
    current = undefined;
    // A failed close leaves nothing pending on it: the next append opens the file afresh.
    await file.close().catch(() => {});
  };
  return {
    /** Appends `lines`; the bytes must stay untouched until the returned promise settles. */
    async append(path: string, lines: Buffer): Promise<void> {
      if (current?.path !== path) {
        await close();
        current = { path, file: await open(path, "a") };
      }
      try {
        await writeAll(current.file, lines); // all of it, at the end (O_APPEND)
      } catch (error) {
        await close();
        throw error;
      }
    },
    /** Closes the file held open (before it is removed, and at the store's close). */
    close,
    /** Closes the file held open if it is `path`. */
    async release(path: string): Promise<void> {
      if (current?.path === path) await close();
    },
  };
}
