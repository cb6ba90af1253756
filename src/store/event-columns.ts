import type { VerificationEvent } from "./ports/events.js";

/**
 * Verification events held column by column (typed arrays, strings interned to numbers), so an analytics query
 * over a million events is a tight loop over numbers rather than a million parsed objects. Shared by the
 * embedded and in-memory event stores; MongoDB answers with an aggregation pipeline instead.
 */
export class StringInterner {
  private readonly ids = new Map<string, number>();
  readonly values: string[] = [];

  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(value, id);
      this.values.push(value);
    }
    return id;
  }

  /** The id of a value already seen, or -1: a filter on a never-seen value matches nothing. */
  find(value: string): number {
    return this.ids.get(value) ?? -1;
  }
}

/** Interned ids shared by every segment of one store: strings, and tag sets (sorted, deduplicated). */
export class EventDictionary {
  readonly strings = new StringInterner();
  private readonly tagSetIds = new Map<string, number>();
  readonly tagSets: number[][] = [];

  tagSetId(tags: readonly string[]): number {
    if (tags.length === 0) return 0;
    const ids = [...new Set(tags.map((t) => this.strings.id(t)))].sort((a, b) => a - b);
    const name = ids.join(",");
    let id = this.tagSetIds.get(name);
    if (id === undefined) {
      if (this.tagSets.length === 0) this.tagSets.push([]); // id 0 is the empty set
      id = this.tagSets.length;
      this.tagSetIds.set(name, id);
      this.tagSets.push(ids);
    }
    return id;
  }

  tagsOf(tagSet: number): readonly number[] {
    return tagSet === 0 ? EMPTY : this.tagSets[tagSet];
  }
}

const EMPTY: readonly number[] = [];
/** The identity column of an event without identity. */
export const NO_IDENTITY = -1;

/** A growable column store of events; `size` rows are valid. */
export class EventColumns {
  size = 0;
  time = new Float64Array(256);
  workspace = new Int32Array(256);
  api = new Int32Array(256);
  key = new Int32Array(256);
  identity = new Int32Array(256);
  outcome = new Int32Array(256);
  tagSet = new Int32Array(256);
  credits = new Float64Array(256);

  constructor(private readonly dictionary: EventDictionary) {}

  push(event: VerificationEvent): void {
    if (this.size === this.time.length) this.grow();
    const i = this.size++;
    const strings = this.dictionary.strings;
    this.time[i] = event.time;
    this.workspace[i] = strings.id(event.workspaceId);
    this.api[i] = strings.id(event.apiId);
    this.key[i] = strings.id(event.keyId);
    this.identity[i] = event.identityId === undefined ? NO_IDENTITY : strings.id(event.identityId);
    this.outcome[i] = strings.id(event.outcome);
    this.tagSet[i] = this.dictionary.tagSetId(event.tags ?? []);
    this.credits[i] = event.creditsSpent || 0;
  }

  private grow(): void {
    const capacity = this.time.length * 2;
    const grown = <T extends Float64Array | Int32Array>(old: T): T => {
      const next = new (old.constructor as new (n: number) => T)(capacity);
      next.set(old);
      return next;
    };
    this.time = grown(this.time);
    this.workspace = grown(this.workspace);
    this.api = grown(this.api);
    this.key = grown(this.key);
    this.identity = grown(this.identity);
    this.outcome = grown(this.outcome);
    this.tagSet = grown(this.tagSet);
    this.credits = grown(this.credits);
  }
}
