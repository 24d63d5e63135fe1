import { useEffect, useState } from 'preact/hooks';
import type { StepOutputView, StepRunsView, TrainMetricsView } from '../../src/dashboard/api-types.ts';
import { getJson } from '../api.ts';
import { extentOf, LineChart } from '../charts.tsx';
import type { ChartSeries, Extent } from '../charts.tsx';
import { time } from '../format.ts';

function useStepOutput(prefix: string, path: string): { data: StepOutputView | null; error: string } {
  const [data, setData] = useState<StepOutputView | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    setData(null);
    setError('');
    if (path === '') return;
    getJson<StepOutputView>('step-output', { prefix, path }).then(setData, (e: Error) => setError(e.message));
  }, [prefix, path]);
  return { data, error };
}

/** The charts of a train step's metrics, in page order. */
function chartsOf(m: TrainMetricsView): { title: string; yLabel: string; series: ChartSeries[] }[] {
  const charts = [
    { title: 'Loss', yLabel: 'loss', series: [{ name: 'train', points: m.trainLoss.points }, ...Object.entries(m.evalLoss).map(([t, s]) => ({ name: `eval ${t}`, points: s.points }))] },
    { title: 'Learning rate', yLabel: 'learning rate', series: [{ name: 'learning rate', points: m.learningRate.points }] },
    { title: 'Tokens/s', yLabel: 'tokens/s', series: [{ name: 'tokens/s', points: m.tokensPerSecond.points }] },
  ];
  if (Object.keys(m.evalBpb).length > 0) charts.push({ title: 'Validation bits per byte', yLabel: 'bpb', series: Object.entries(m.evalBpb).map(([t, s]) => ({ name: t, points: s.points })) });
  return charts;
}

/** Per chart title, the ranges covering both runs, so two runs side by side are drawn on the same axes. */
function sharedExtents(runs: readonly (StepOutputView | null)[]): Map<string, Extent> {
  const out = new Map<string, Extent>();
  for (const run of runs) {
    if (!run?.metrics) continue;
    for (const c of chartsOf(run.metrics)) {
      const e = extentOf(c.series);
      if (e === null) continue;
      const had = out.get(c.title);
      out.set(c.title, had === undefined ? e : { x0: Math.min(had.x0, e.x0), x1: Math.max(had.x1, e.x1), y0: Math.min(had.y0, e.y0), y1: Math.max(had.y1, e.y1) });
    }
  }
  return out;
}

function fmt(v: number): string {
  return Math.abs(v) >= 1000 || v === Math.trunc(v) ? v.toLocaleString('en-US', { maximumFractionDigits: 2 }) : v.toPrecision(4);
}

/** What one output of a step holds: its charts, its eval table, its artifact record. */
function StepOutputColumn({ data, error, extents }: { data: StepOutputView | null; error: string; extents: Map<string, Extent> | null }) {
  useEffect(() => {
    // The first charts on screen, which the browser test and the bench measure.
    if (data?.metrics && performance.getEntriesByName('iris-charts-rendered').length === 0) performance.mark('iris-charts-rendered');
  }, [data]);
  if (error) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  const m = data.metrics;
  return (
    <div class="step-output" data-output={data.outputPath}>
      <div class="mono small muted">{data.outputPath}</div>
      {m !== null && (
        <>
          <p class="small muted">
            {m.records.toLocaleString('en-US')} records in {m.file}
            {m.lastStep !== null ? ` · last step ${m.lastStep}` : ''}
            {m.trainLoss.total > m.trainLoss.points.length ? ` · drawn with ${m.trainLoss.points.length} of ${m.trainLoss.total.toLocaleString('en-US')} points` : ''}
          </p>
          <div class="charts">
            {chartsOf(m).map((c) => (
              <LineChart key={c.title} title={c.title} yLabel={c.yLabel} series={c.series} extent={extents?.get(c.title) ?? null} />
            ))}
          </div>
        </>
      )}
      {data.evalResults !== null && (
        <table class="eval-results">
          <thead>
            <tr>
              <th>Task</th>
              <th>Metric</th>
              <th class="num">Value</th>
              <th class="num">Stderr</th>
            </tr>
          </thead>
          <tbody>
            {data.evalResults.map((r) => (
              <tr key={`${r.task}/${r.metric}`}>
                <td>{r.task}</td>
                <td>{r.metric}</td>
                <td class="num">{fmt(r.value)}</td>
                <td class="num muted">{r.stderr === null ? '-' : `± ${fmt(r.stderr)}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data.artifact !== null && (
        <dl class="artifact-record">
          <dt>artifact</dt>
          <dd class="mono">{data.artifact.id}</dd>
          <dt>fingerprint</dt>
          <dd class="mono">{data.artifact.fingerprint}</dd>
          <dt>result type</dt>
          <dd class="mono">{data.artifact.resultType || '-'}</dd>
          <dt>deps</dt>
          <dd class="mono">{data.artifact.deps.join(', ') || '-'}</dd>
        </dl>
      )}
      {m === null && data.evalResults === null && data.artifact === null && <p class="muted small">No metrics, eval results or artifact record in this output.</p>}
    </div>
  );
}

/** The selected step's output, and beside it another run of the same step name when one is picked. */
export function StepOutputPanel({ prefix, name, path, compare, onCompare }: { prefix: string; name: string; path: string; compare: string; onCompare: (path: string) => void }) {
  const [runs, setRuns] = useState<StepRunsView | null>(null);
  useEffect(() => {
    setRuns(null);
    getJson<StepRunsView>('step-runs', { prefix, path }).then(setRuns, () => setRuns(null));
  }, [prefix, path]);
  const others = (runs?.runs ?? []).filter((r) => r.outputPath !== path);
  const a = useStepOutput(prefix, path);
  const b = useStepOutput(prefix, compare);
  const extents = compare === '' ? null : sharedExtents([a.data, b.data]);
  return (
    <section class="step-panel">
      <div class="title-row">
        <h2>{name}</h2>
        <label class="small muted">
          Compare with{' '}
          <select class="compare" value={compare} onChange={(e) => onCompare(e.currentTarget.value)} disabled={others.length === 0}>
            <option value="">{others.length === 0 ? 'no other run of this step' : 'another run…'}</option>
            {others.map((r) => (
              <option key={r.outputPath} value={r.outputPath}>
                {r.outputPath.slice(r.outputPath.lastIndexOf('/') + 1)} · {r.mtimeMs > 0 ? time(r.mtimeMs) : ''}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div class={compare === '' ? 'runs one' : 'runs two'}>
        <StepOutputColumn data={a.data} error={a.error} extents={extents} />
        {compare !== '' && <StepOutputColumn data={b.data} error={b.error} extents={extents} />}
      </div>
    </section>
  );
}
