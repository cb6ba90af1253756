import { StringInterner } from "./event-columns.js";
import type { VerificationEvent } from "./ports/events.js";

/** Bytes kept per row for the request id: ours are `req_` + base58 of 16 bytes (at most 26 characters). */
const REQUEST_ID_BYTES = 32;
/** Tag list column: the event had no `tags` (read back as undefined; every writer reads it as `tags ?? []`). */
const NO_TAGS = -1;
/** Tag list column: `[]`, the common case, kept without a dictionary lookup. */
const EMPTY_TAGS = -2;
/** Identity column: no identity. */
const NO_IDENTITY = -1;
/** Interned values held before a take rebuilds the dictionary from the live rows alone. */
const MIN_COMPACT = 4_096;

/**
 * The event batcher's buffer: a FIFO of verification events that overwrites its oldest entry when full, kept column
 * by column (typed arrays for numbers, interned ids for strings, the request id's bytes in place) rather than as the
 * event objects. A recorded event is copied and can die young: the buffer holds no per-event object until a batch is
 * taken, so a second of buffered events is not promoted to the old generation. An event of another shape (a request
 * id that is long or not ASCII, a field of a wrong type) is kept as the object itself, so `take` gives back exactly
 * what was recorded. Storage starts small and doubles up to `capacity`; the dictionary is rebuilt from the live rows
 * when it has grown well past them, so unbounded values (rate-limit identifiers, tags) never accumulate.
 */
export class EventRing {
  size = 0;
  private head = 0;
  private slots: number;
  private time: Float64Array;
  private credits: Float64Array;
  private latency: Float64Array;
  private workspace: Int32Array;
  private api: Int32Array;
  private key: Int32Array;
  private identity: Int32Array;
  private outcome: Int32Array;
  private tags: Int32Array;
  private requestIdLength: Uint8Array;
  private requestId: Buffer;
  /** Events kept whole (see above), by slot. */
  private whole = new Map<number, VerificationEvent>();
  private strings = new StringInterner();
  private tagLists = new TagLists();
  private compactAbove = MIN_COMPACT;

  constructor(readonly capacity: number, initial = 1_024) {
    this.slots = Math.max(1, Math.min(capacity, initial));
    this.time = new Float64Array(this.slots);
    this.credits = new Float64Array(this.slots);
    this.latency = new Float64Array(this.slots);
    this.workspace = new Int32Array(this.slots);
    this.api = new Int32Array(this.slots);
    this.key = new Int32Array(this.slots);
    this.identity = new Int32Array(this.slots);
    this.outcome = new Int32Array(this.slots);
    this.tags = new Int32Array(this.slots);
    this.requestIdLength = new Uint8Array(this.slots);
    this.requestId = Buffer.alloc(this.slots * REQUEST_ID_BYTES);
  }

  /** Appends; returns true when the oldest event had to go to make room. */
  push(event: VerificationEvent): boolean {
    if (this.size === this.capacity) {
      this.write(this.head, event);
      this.head = (this.head + 1) % this.slots;
      return true;
    }
    if (this.size === this.slots) this.grow();
    this.write((this.head + this.size) % this.slots, event);
    this.size += 1;
    return false;
  }

  /** Puts events back in front (they are older than anything queued); returns how many did not fit. */
  unshift(events: readonly VerificationEvent[]): number {
    const room = this.capacity - this.size;
    const kept = Math.min(room, events.length);
    while (this.slots - this.size < kept) this.grow();
    for (let i = events.length - 1; i >= events.length - kept; i--) {
      this.head = (this.head - 1 + this.slots) % this.slots;
      this.write(this.head, events[i]!);
      this.size += 1;
    }
    return events.length - kept;
  }

  /** Removes and returns up to `max` of the oldest events, oldest first, as objects. */
  take(max: number): VerificationEvent[] {
    const n = Math.min(max, this.size);
    const out = new Array<VerificationEvent>(n);
    for (let i = 0; i < n; i++) {
      out[i] = this.read(this.head);
      if (this.whole.size > 0) this.whole.delete(this.head);
      this.head = (this.head + 1) % this.slots;
    }
    this.size -= n;
    if (this.dictionarySize() > this.compactAbove) this.compact();
    return out;
  }

  /** Distinct strings and tag lists held, for tests. */
  dictionarySize(): number {
    return this.strings.values.length + this.tagLists.lists.length;
  }

  private write(slot: number, event: VerificationEvent): void {
    const tags = event.tags as unknown;
    const requestId = event.requestId as unknown;
    if (
      typeof event.time !== "number" || typeof event.creditsSpent !== "number" || typeof event.latencyMs !== "number" ||
      typeof event.workspaceId !== "string" || typeof event.apiId !== "string" || typeof event.keyId !== "string" ||
      typeof event.outcome !== "string" || (event.identityId !== undefined && typeof event.identityId !== "string") ||
      (tags !== undefined && !Array.isArray(tags)) || typeof requestId !== "string" || !this.putRequestId(slot, requestId)
    ) {
      this.whole.set(slot, event);
      return;
    }
    const tagList = tags === undefined ? NO_TAGS : this.tagListId(tags as unknown[]);
    if (tagList === undefined) {
      this.whole.set(slot, event);
      return;
    }
    if (this.whole.size > 0) this.whole.delete(slot);
    this.time[slot] = event.time;
    this.credits[slot] = event.creditsSpent;
    this.latency[slot] = event.latencyMs;
    this.workspace[slot] = this.strings.id(event.workspaceId);
    this.api[slot] = this.strings.id(event.apiId);
    this.key[slot] = this.strings.id(event.keyId);
    this.identity[slot] = event.identityId === undefined ? NO_IDENTITY : this.strings.id(event.identityId);
    this.outcome[slot] = this.strings.id(event.outcome);
    this.tags[slot] = tagList;
  }

  private read(slot: number): VerificationEvent {
    const whole = this.whole.size > 0 ? this.whole.get(slot) : undefined;
    if (whole) return whole;
    const values = this.strings.values;
    const identity = this.identity[slot]!;
    const tagList = this.tags[slot]!;
    const at = slot * REQUEST_ID_BYTES;
    return {
      time: this.time[slot]!,
      workspaceId: values[this.workspace[slot]!]!,
      apiId: values[this.api[slot]!]!,
      keyId: values[this.key[slot]!]!,
      identityId: identity === NO_IDENTITY ? undefined : values[identity],
      outcome: values[this.outcome[slot]!]!,
      tags: (tagList === EMPTY_TAGS ? [] : tagList === NO_TAGS ? undefined : this.tagLists.lists[tagList]!.map((id) => values[id]!)) as string[],
      creditsSpent: this.credits[slot]!,
      latencyMs: this.latency[slot]!,
      requestId: this.requestId.toString("latin1", at, at + this.requestIdLength[slot]!),
    };
  }

  /** Copies an ASCII id of at most REQUEST_ID_BYTES characters into the slot's bytes; false for any other. */
  private putRequestId(slot: number, requestId: string): boolean {
    if (requestId.length > REQUEST_ID_BYTES) return false;
    const at = slot * REQUEST_ID_BYTES;
    for (let i = 0; i < requestId.length; i++) {
      const c = requestId.charCodeAt(i);
      if (c > 0x7f) return false;
      this.requestId[at + i] = c;
    }
    this.requestIdLength[slot] = requestId.length;
    return true;
  }

  /** The id of a list of strings, order and repeats kept (writers store tags as given); undefined if not strings. */
  private tagListId(tags: readonly unknown[]): number | undefined {
    if (tags.length === 0) return EMPTY_TAGS;
    const ids = new Array<number>(tags.length);
    for (let i = 0; i < tags.length; i++) {
      const tag = tags[i];
      if (typeof tag !== "string") return undefined;
      ids[i] = this.strings.id(tag);
    }
    return this.tagLists.id(ids);
  }

  /** Doubles the storage, laying the rows out from slot 0 in order. */
  private grow(): void {
    const slots = Math.min(this.capacity, this.slots * 2);
    const order = (i: number) => (this.head + i) % this.slots;
    const moved = <T extends Float64Array | Int32Array | Uint8Array>(old: T, width = 1): T => {
      const next = new (old.constructor as new (n: number) => T)(slots * width);
      for (let i = 0; i < this.size; i++) next.set(old.subarray(order(i) * width, (order(i) + 1) * width), i * width);
      return next;
    };
    this.time = moved(this.time);
    this.credits = moved(this.credits);
    this.latency = moved(this.latency);
    this.workspace = moved(this.workspace);
    this.api = moved(this.api);
    this.key = moved(this.key);
    this.identity = moved(this.identity);
    this.outcome = moved(this.outcome);
    this.tags = moved(this.tags);
    this.requestIdLength = moved(this.requestIdLength);
    const requestId = Buffer.alloc(slots * REQUEST_ID_BYTES);
    for (let i = 0; i < this.size; i++) this.requestId.copy(requestId, i * REQUEST_ID_BYTES, order(i) * REQUEST_ID_BYTES, (order(i) + 1) * REQUEST_ID_BYTES);
    this.requestId = requestId;
    const whole = new Map<number, VerificationEvent>();
    for (let i = 0; i < this.size; i++) {
      const event = this.whole.get(order(i));
      if (event) whole.set(i, event);
    }
    this.whole = whole;
    this.head = 0;
    this.slots = slots;
  }

  /** Re-interns the live rows into a fresh dictionary, dropping values no buffered event uses any more. */
  private compact(): void {
    const strings = new StringInterner();
    const tagLists = new TagLists();
    const remap = (id: number) => strings.id(this.strings.values[id]!);
    for (let i = 0; i < this.size; i++) {
      const slot = (this.head + i) % this.slots;
      if (this.whole.has(slot)) continue;
      this.workspace[slot] = remap(this.workspace[slot]!);
      this.api[slot] = remap(this.api[slot]!);
      this.key[slot] = remap(this.key[slot]!);
      if (this.identity[slot] !== NO_IDENTITY) this.identity[slot] = remap(this.identity[slot]!);
      this.outcome[slot] = remap(this.outcome[slot]!);
      if (this.tags[slot]! >= 0) this.tags[slot] = tagLists.id(this.tagLists.lists[this.tags[slot]!]!.map(remap));
    }
    this.strings = strings;
    this.tagLists = tagLists;
    this.compactAbove = Math.max(MIN_COMPACT, 2 * this.dictionarySize());
  }
}

/** Lists of interned string ids, themselves interned. */
class TagLists {
  readonly lists: number[][] = [];
  private readonly ids = new Map<string, number>();

  id(list: number[]): number {
    const name = list.join(",");
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.lists.length;
      this.ids.set(name, id);
      this.lists.push(list);
    }
    return id;
  }
}
