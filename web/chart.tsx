import "uplot/dist/uPlot.min.css";
import uPlot from "uplot";
import { useEffect, useRef } from "preact/hooks";
import { bucketLabel, OUTCOMES, outcomeTotals, RANGES, type ChartPoint, type Granularity, type Outcome, type RangeId } from "./usage.js";

/** A chart's series: label and colour per count of its points. */
type Series = readonly Pick<Outcome<unknown>, "code" | "color">[];

/** Stacked bars: series i is the sum of outcomes 0..i, drawn tallest first so each band shows its own outcome. */
function stackedData(points: readonly ChartPoint[], shown: number[]): uPlot.AlignedData {
  const xs = points.map((p) => p.time / 1000);
  // Empty buckets are gaps (null), not zero-height bars drawn as a line on the axis.
  const layers = shown.map((_, layer) => points.map((p) => shown.slice(0, layer + 1).reduce((sum, i) => sum + p.counts[i], 0) || null));
  return [xs, ...layers.reverse()];
}

/** Axis ticks in UTC, 24-hour: the time (with the date where the day changes) or the date or the month. */
function tickLabels(granularity: Granularity) {
  return (_u: uPlot, splits: number[]) => {
    let lastDay = "";
    return splits.map((s) => {
      const iso = new Date(s * 1000).toISOString();
      if (granularity === "month") return iso.slice(0, 7);
      if (granularity === "day") return iso.slice(5, 10);
      const day = iso.slice(5, 10);
      const label = day === lastDay ? iso.slice(11, 16) : `${iso.slice(11, 16)}\n${day}`;
      lastDay = day;
      return label;
    });
  };
}

function BarChart({ points, shown, label, granularity, outcomes }: { points: readonly ChartPoint[]; shown: number[]; label: string; granularity: Granularity; outcomes: Series }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || shown.length === 0) return;
    const bars = uPlot.paths.bars?.({ size: [0.7, 40] });
    const series: uPlot.Series[] = [{}, ...[...shown].reverse().map((i) => ({
      label: outcomes[i].code, stroke: outcomes[i].color, fill: outcomes[i].color, paths: bars, points: { show: false },
    }))];
    const plot = new uPlot({
      width: Math.max(el.clientWidth, 200),
      height: 220,
      series,
      legend: { show: false },
      cursor: { show: false },
      // Ticks fall on UTC boundaries (the buckets are UTC) whatever the browser's time zone.
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
      axes: [{ values: tickLabels(granularity) }, { size: 44, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000, 10_000, 100_000, 1_000_000] }],
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    }, stackedData(points, shown), el);
    // Follow the container's width (phone rotation, window resize) without re-querying.
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height: 220 }));
    resize.observe(el);
    return () => { resize.disconnect(); plot.destroy(); };
  }, [points, shown.join(), granularity, outcomes]);
  return <div ref={box} class="chart" role="img" aria-label={label} />;
}

/**
 * Verifications (or, with `outcomes` and `noun`, rate-limit checks) over time by outcome: a stacked bar chart, the
 * totals in words (its text alternative), and every non-empty bucket in a table under "Show the numbers".
 */
export function UsageChart({ points, granularity, title, outcomes = OUTCOMES, noun = "verification" }: {
  points: readonly ChartPoint[]; granularity: Granularity; title: string; outcomes?: Series; noun?: string;
}) {
  const totals = outcomeTotals(points);
  const total = totals.reduce((a, b) => a + b, 0);
  const shown = outcomes.map((_, i) => i).filter((i) => totals[i] > 0);
  const summary = `${total} ${noun}${total === 1 ? "" : "s"}`;
  return (
    <figure class="usage" aria-label={title}>
      <figcaption>
        <strong class="total">{summary}</strong>
        {shown.length > 0 && (
          <ul class="legend" aria-label="By outcome">
            {shown.map((i) => (
              <li key={outcomes[i].code}><span class="swatch" style={{ background: outcomes[i].color }} aria-hidden="true" />
                {outcomes[i].code}: <span class="count">{totals[i]}</span></li>
            ))}
          </ul>
        )}
      </figcaption>
      {total === 0 ? <p class="muted">No {noun}s in this range.</p> : (
        <>
          <BarChart points={points} shown={shown} outcomes={outcomes} granularity={granularity} label={`${title}: ${summary} by outcome over time`} />
          <details>
            <summary>Show the numbers</summary>
            <div class="table-wrap">
              <table>
                <thead><tr><th>Time</th>{shown.map((i) => <th key={i}>{outcomes[i].code}</th>)}<th>Total</th></tr></thead>
                <tbody>
                  {points.filter((p) => p.total > 0).map((p) => (
                    <tr key={p.time}>
                      <td data-label="Time">{bucketLabel(p.time, granularity)}</td>
                      {shown.map((i) => <td key={i} data-label={outcomes[i].code}>{p.counts[i]}</td>)}
                      <td data-label="Total">{p.total}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </figure>
  );
}

/** The time range and granularity pickers; a range keeps the granularity when it offers it, else takes its first. */
export function RangePicker(props: { range: RangeId; granularity: Granularity; onChange: (range: RangeId, granularity: Granularity) => void }) {
  const range = RANGES.find((r) => r.id === props.range) ?? RANGES[1];
  const granularities: readonly Granularity[] = range.granularities;
  return (
    <>
      <label>Time range
        <select value={props.range} onChange={(e) => {
          const next = RANGES.find((r) => r.id === (e.target as HTMLSelectElement).value) ?? RANGES[1];
          const keep = (next.granularities as readonly Granularity[]).includes(props.granularity);
          props.onChange(next.id, keep ? props.granularity : next.granularities[0]);
        }}>
          {RANGES.map((r) => <option key={r.id} value={r.id}>{r.label}</option>)}
        </select>
      </label>
      <label>Granularity
        <select value={props.granularity} onChange={(e) => props.onChange(props.range, (e.target as HTMLSelectElement).value as Granularity)}>
          {granularities.map((g) => <option key={g} value={g}>{g}</option>)}
        </select>
      </label>
    </>
  );
}
