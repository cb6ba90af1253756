import type { Credits, RatelimitConfig } from "../../../gen/keyward/v1/keys_pb.js";
import { invalid } from "../../domain/errors.js";
import { newId, type RandomBytes } from "../../domain/ids.js";
import type { KeyRecord, RatelimitRecord } from "../../store/ports/key-records.js";

const MAX_META_PROPERTIES = 100;
const MAX_META_BYTES = 64 * 1024;

/** Free-form metadata, bounded so one key cannot bloat every verification answer. */
export function checkedMeta(meta: Record<string, unknown> | undefined, location = "meta") {
  if (meta === undefined) return undefined;
  if (Object.keys(meta).length > MAX_META_PROPERTIES) {
    throw invalid(`${location} has more than ${MAX_META_PROPERTIES} properties.`, [{ location, message: `at most ${MAX_META_PROPERTIES} properties` }]);
  }
  if (Buffer.byteLength(JSON.stringify(meta)) > MAX_META_BYTES) {
    throw invalid(`${location} is larger than ${MAX_META_BYTES} bytes.`, [{ location, message: `at most ${MAX_META_BYTES} bytes as JSON` }]);
  }
  return meta;
}

/** Configured limits with ids; names must be unique within one owner. */
export function ratelimitRecords(
  limits: readonly RatelimitConfig[],
  options: { now: number; randomBytes: RandomBytes; location?: string },
): RatelimitRecord[] {
  const location = options.location ?? "ratelimits";
  const seen = new Set<string>();
  return limits.map((limit, i) => {
    if (seen.has(limit.name)) {
      throw invalid(`Two rate limits are named "${limit.name}".`, [{ location: `${location}[${i}].name`, message: "duplicate name" }]);
    }
    seen.add(limit.name);
    return {
      id: newId("rl", options.now, options.randomBytes),
      name: limit.name,
      limit: Number(limit.limit),
      duration: Number(limit.duration),
      autoApply: limit.autoApply,
    };
  });
}

/** The credits rule of a key (refill day required for monthly, refused for daily) and its starting balance. */
export function creditsConfig(credits: Credits | undefined, location = "credits"): { config: KeyRecord["credits"]; remaining?: number } {
  if (!credits || credits.remaining === undefined) {
    if (credits?.refill) throw invalid("A refill needs a credit balance.", [{ location: `${location}.remaining`, message: "required with refill" }]);
    return { config: undefined };
  }
  const refill = credits.refill;
  if (!refill) return { config: {}, remaining: Number(credits.remaining) };
  if (refill.interval === "monthly" && refill.refillDay === undefined) {
    throw invalid("A monthly refill needs refillDay (1-31).", [{ location: `${location}.refill.refillDay`, message: "required for monthly refills" }]);
  }
  if (refill.interval === "daily" && refill.refillDay !== undefined) {
    throw invalid("refillDay applies to monthly refills only.", [{ location: `${location}.refill.refillDay`, message: "only for monthly refills" }]);
  }
  return {
    config: { refill: { interval: refill.interval as "daily" | "monthly", amount: Number(refill.amount), ...(refill.refillDay !== undefined && { refillDay: refill.refillDay }) } },
    remaining: Number(credits.remaining),
  };
}

/** Records keep absent optional fields absent, never undefined-valued. */
export function dropUndefined(record: object) {
  for (const [k, v] of Object.entries(record)) if (v === undefined) delete (record as Record<string, unknown>)[k];
}
