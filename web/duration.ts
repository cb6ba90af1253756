/**
 * Durations, written one way across the dashboard: a number and a unit ("500 ms", "60 s", "5 min", "2 h", "1 d"),
 * the largest unit that divides the value. Forms read the same text back.
 */
const UNITS = [
  { unit: "d", ms: 86_400_000 },
  { unit: "h", ms: 3_600_000 },
  { unit: "min", ms: 60_000 },
  { unit: "s", ms: 1000 },
  { unit: "ms", ms: 1 },
] as const;

/** Other spellings a person may type for each unit. */
const ALIASES: Record<string, (typeof UNITS)[number]["unit"]> = {
  d: "d", day: "d", days: "d",
  h: "h", hr: "h", hour: "h", hours: "h",
  m: "min", min: "min", mins: "min", minute: "min", minutes: "min",
  s: "s", sec: "s", secs: "s", second: "s", seconds: "s",
  ms: "ms", millisecond: "ms", milliseconds: "ms",
};

export function durationText(ms: bigint | number): string {
  const n = Number(ms);
  const unit = UNITS.find((u) => n !== 0 && n % u.ms === 0) ?? UNITS[UNITS.length - 1];
  return `${n / unit.ms} ${unit.unit}`;
}

/** A limit per window: "3 per 60 s". */
export function rateText(limit: bigint | number, durationMs: bigint | number): string {
  return `${limit} per ${durationText(durationMs)}`;
}

/** Reads "60 s", "60s", "5 min", "1 h", "1 d" or "500 ms"; the error names what is wrong, in words. */
export function parseDuration(text: string, min = 1000): { ms: number } | { error: string } {
  const match = /^(\d+)\s*([a-z]+)$/i.exec(text.trim());
  const unit = match && ALIASES[match[2].toLowerCase()];
  if (!match || !unit) return { error: `“${text.trim()}” is not a duration: write a number and a unit, e.g. 60 s, 5 min, 1 h or 1 d.` };
  const ms = Number(match[1]) * (UNITS.find((u) => u.unit === unit)?.ms ?? 1);
  if (ms < min) return { error: `The window must be at least ${durationText(min)}.` };
  // Beyond ten years a window means nothing; the API's own bound (2^53 ms) is no number a person would type.
  if (ms > 3650 * 86_400_000) return { error: "The window must be at most 3650 d (ten years)." };
  return { ms };
}
