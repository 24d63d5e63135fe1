/** One line of a chart: `[x, y]` points in x order. */
export interface ChartSeries {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
}

const W = 440;
const H = 220;
const PAD = { left: 58, right: 12, top: 12, bottom: 38 };
/** Line colours, in series order (colour-blind friendly, readable on white). */
/** Series with at most this many points also get a dot per point. */
const MAX_DOTS = 40;
const COLOURS = ['#2f5bd3', '#d9480f', '#2b8a3e', '#862e9c', '#c2255c', '#0b7285', '#5c940d', '#e67700'];

/** About five round tick values covering [lo, hi]. */
export function ticks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** A tick label: compact for large values (12k, 3.4M), 3 significant digits otherwise. */
export function tickLabel(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${Number((v / 1e3).toPrecision(3))}k`;
  if (a !== 0 && a < 1e-3) return Number(v.toPrecision(2)).toExponential();
  return String(Number(v.toPrecision(3)));
}

/** The x and y ranges covering every point of `series`, or null when there is none. */
export function extentOf(series: readonly ChartSeries[]): Extent | null {
  let e: Extent | null = null;
  for (const s of series) {
    for (const [x, y] of s.points) {
      e = e === null ? { x0: x, x1: x, y0: y, y1: y } : { x0: Math.min(e.x0, x), x1: Math.max(e.x1, x), y0: Math.min(e.y0, y), y1: Math.max(e.y1, y) };
    }
  }
  return e;
}

/** A chart's data ranges. */
export interface Extent {
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
}

/**
 * An SVG line chart with axes, tick labels, axis titles and a legend; no chart library. `extent` fixes
 * the ranges (two runs compared side by side share them); by default they cover the series.
 */
export function LineChart({ title, yLabel, series, xLabel = 'step', extent }: { title: string; yLabel: string; series: readonly ChartSeries[]; xLabel?: string; extent?: Extent | null }) {
  const drawn = series.filter((s) => s.points.length > 0);
  if (drawn.length === 0) {
    return (
      <figure class="chart empty" data-chart={title}>
        <figcaption>{title}</figcaption>
        <p class="muted small">not logged</p>
      </figure>
    );
  }
  const e = extent ?? extentOf(drawn)!;
  const x0 = e.x0;
  let x1 = e.x1;
  let y0 = e.y0;
  let y1 = e.y1;
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) {
    const d = Math.abs(y0) * 0.1 || 1;
    y0 -= d;
    y1 += d;
  }
  const pad = (y1 - y0) * 0.05;
  y0 -= pad;
  y1 += pad;
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const sx = (x: number) => PAD.left + ((x - x0) / (x1 - x0)) * iw;
  const sy = (y: number) => PAD.top + ih - ((y - y0) / (y1 - y0)) * ih;
  const xt = ticks(x0, x1);
  const yt = ticks(y0, y1);
  return (
    <figure class="chart" data-chart={title}>
      <figcaption>
        {title}
        {drawn.length > 1 &&
          drawn.map((s, i) => (
            <span key={s.name} class="legend">
              <i style={{ background: COLOURS[i % COLOURS.length] }} />
              {s.name}
            </span>
          ))}
      </figcaption>
      <svg width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title}>
        <g class="grid">
          {yt.map((v) => (
            <line key={`y${v}`} x1={PAD.left} x2={W - PAD.right} y1={sy(v)} y2={sy(v)} />
          ))}
        </g>
        <g class="axis">
          <line x1={PAD.left} x2={W - PAD.right} y1={PAD.top + ih} y2={PAD.top + ih} />
          <line x1={PAD.left} x2={PAD.left} y1={PAD.top} y2={PAD.top + ih} />
          {xt.map((v) => (
            <text key={`xt${v}`} class="tick x" x={sx(v)} y={PAD.top + ih + 14} text-anchor="middle">
              {tickLabel(v)}
            </text>
          ))}
          {yt.map((v) => (
            <text key={`yt${v}`} class="tick y" x={PAD.left - 5} y={sy(v) + 4} text-anchor="end">
              {tickLabel(v)}
            </text>
          ))}
          <text class="axis-label x" x={PAD.left + iw / 2} y={H - 4} text-anchor="middle">
            {xLabel}
          </text>
          <text class="axis-label y" x={12} y={PAD.top + ih / 2} text-anchor="middle" transform={`rotate(-90 12 ${PAD.top + ih / 2})`}>
            {yLabel}
          </text>
        </g>
        {drawn.map((s, i) => (
          <path
            key={s.name}
            class="series"
            data-series={s.name}
            data-points={s.points.length}
            stroke={COLOURS[i % COLOURS.length]}
            d={s.points.map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join('')}
          />
        ))}
        {drawn.map((s, i) =>
          // Sparse series (evaluations every N steps) get a dot per point, so one or two points still show.
          s.points.length <= MAX_DOTS
            ? s.points.map(([x, y]) => <circle key={`dot-${s.name}-${x}`} class="dot" cx={sx(x)} cy={sy(y)} r={2.5} fill={COLOURS[i % COLOURS.length]} />)
            : null,
        )}
      </svg>
    </figure>
  );
}
