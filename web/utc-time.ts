/**
 * Instants typed the way the dashboard writes them: ISO 8601 in UTC, 24-hour ("2030-01-01 13:05", seconds optional,
 * "T" or a space between date and time, a date alone meaning its midnight). The browser's own date-time control
 * would show its locale's 12-hour format instead.
 */
export function parseUtc(text: string): { ms?: number; error?: string } {
  const value = text.trim();
  if (value === "") return {};
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?(?:\s*(?:Z|UTC))?$/i.exec(value);
  if (!match) return { error: `“${value}” is not a time: write it as YYYY-MM-DD HH:MM[:SS] (UTC, 24-hour), e.g. 2030-01-01 13:05.` };
  const [y, mo, d, h = "0", mi = "0", s = "0"] = match.slice(1).map((part) => part ?? undefined) as string[];
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  // Date.UTC rolls 2030-02-30 over into March; a date that does not round-trip does not exist.
  const back = new Date(ms);
  if (back.getUTCMonth() !== Number(mo) - 1 || back.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    return { error: `“${value}” is not a time that exists.` };
  }
  return { ms };
}

/** An instant as the forms take it back: "2030-01-01 13:05:07". */
export function utcText(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}
