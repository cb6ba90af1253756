/** One scrape of /metrics: sample values by series (`name{label="value",...}` with labels sorted). */
export type Scrape = Map<string, number>;

/** The series key tests use: `keyward_requests_total{route="ApisService.GetApi",status="200",transport="rest-v2"}`. */
export function series(name: string, labels: Record<string, string> = {}): string {
  const parts = Object.keys(labels).sort().map((k) => `${k}="${labels[k]}"`);
  return parts.length ? `${name}{${parts.join(",")}}` : name;
}

/** Parses the Prometheus text format (the subset prom-client writes: no timestamps, escaped label values). */
export function parseMetrics(text: string): Scrape {
  const out: Scrape = new Map();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    out.set(series(match[1], labels), Number(match[3]));
  }
  return out;
}

/** Every series whose value changed between two scrapes (a series new in `after` counts from 0), by its change. */
export function deltas(before: Scrape, after: Scrape, prefix: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of after) {
    if (!key.startsWith(prefix)) continue;
    const change = value - (before.get(key) ?? 0);
    if (change !== 0) out[key] = change;
  }
  return out;
}

/** GETs /metrics and parses it. */
export async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const response = await fetch(`${baseUrl}/metrics`, { headers });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}
