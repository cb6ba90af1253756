/**
 * An RPC message or REST JSON as plain JSON, so one assertion reads every transport's answer: bigints as numbers,
 * no `$typeName`, no undefined fields.
 */
export function plain(value: unknown): any {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === "$typeName" ? undefined : typeof v === "bigint" ? Number(v) : v)));
}
