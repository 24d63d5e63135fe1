import { useEffect, useState } from 'preact/hooks';
import type { ExperimentListResponse, ExperimentStepView, ExperimentView } from '../../src/dashboard/api-types.ts';
import { getJson } from '../api.ts';
import { jobHref, time } from '../format.ts';
import { navigate } from '../router.ts';
import { StepOutputPanel } from './step-output.tsx';

const NODE_W = 250;
const NODE_H = 54;
const GAP_X = 70;
const GAP_Y = 24;

/** Experiments under a prefix; with `file`, one experiment drawn as its DAG. */
export function ExperimentsPage({ params }: { params: URLSearchParams }) {
  const prefix = params.get('prefix') ?? '';
  const file = params.get('file') ?? '';
  const [draft, setDraft] = useState(prefix);
  useEffect(() => setDraft(prefix), [prefix]);
  return (
    <section>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate('experiments', { prefix: draft });
        }}
      >
        <label class="grow">
          Prefix
          <input class="wide" value={draft} placeholder="/path/to/prefix or gs://bucket/prefix" onInput={(e) => setDraft(e.currentTarget.value)} />
        </label>
        <button type="submit">Open</button>
      </form>
      {prefix !== '' && file === '' && <ExperimentList prefix={prefix} />}
      {prefix !== '' && file !== '' && <ExperimentDag prefix={prefix} file={file} step={params.get('step') ?? ''} compare={params.get('compare') ?? ''} />}
    </section>
  );
}

function ExperimentList({ prefix }: { prefix: string }) {
  const [data, setData] = useState<ExperimentListResponse | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    setData(null);
    getJson<ExperimentListResponse>('experiments', { prefix }).then(setData, (e: Error) => setError(e.message));
  }, [prefix]);
  if (error) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  if (data.experiments.length === 0) return <p class="muted">No experiment files under {prefix}/experiments/.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>Experiment</th>
          <th>Steps</th>
          <th>Created</th>
          <th>Script</th>
        </tr>
      </thead>
      <tbody>
        {data.experiments.map((x) => (
          <tr key={x.file}>
            <td>
              <a href={`#/experiment?prefix=${encodeURIComponent(prefix)}&file=${encodeURIComponent(x.file)}`}>{x.file}</a>
            </td>
            <td>{x.stepCount}</td>
            <td class="muted">{x.createdDate ?? time(x.mtimeMs)}</td>
            <td class="muted">{x.callerPath ?? '-'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Column of each step: one past its deepest dependency. */
function layers(steps: readonly ExperimentStepView[]): number[] {
  const depth: number[] = steps.map(() => -1);
  const visit = (i: number, seen: Set<number>): number => {
    if (depth[i]! >= 0) return depth[i]!;
    if (seen.has(i)) return 0;
    seen.add(i);
    const d = Math.max(-1, ...steps[i]!.dependencies.map((j) => visit(j, seen))) + 1;
    depth[i] = d;
    return d;
  };
  steps.forEach((_, i) => visit(i, new Set()));
  return depth;
}

function statusClass(status: string | null): string {
  return `node st-${(status ?? 'NONE').replace(/[^A-Z_]/g, '')}`;
}

/** The node's first line: `name@version` for an ArtifactStep, else the step name; long names keep their end. */
function nodeLabel(s: ExperimentStepView): string {
  const label = s.artifact ? s.artifact.id : s.name;
  return label.length > 31 ? `…${label.slice(-30)}` : label;
}

/** The node's second line: status, and for an artifact its stored fingerprint or the drift marker. */
function nodeDetail(s: ExperimentStepView): string {
  const status = s.status ?? 'not run';
  if (s.artifact) {
    if (s.artifact.drift) return `${status} · ⚠ drift`;
    const fp = s.artifact.recordFingerprint ?? s.artifact.planFingerprint;
    return fp === null ? status : `${status} · ${fp.slice(0, 8)}`;
  }
  return `${status}${s.jobs.length > 0 ? ' · remote' : ''}`;
}

function ExperimentDag({ prefix, file, step: stepParam, compare }: { prefix: string; file: string; step: string; compare: string }) {
  const [data, setData] = useState<ExperimentView | null>(null);
  const [error, setError] = useState('');
  const selected = stepParam === '' || !/^\d+$/.test(stepParam) ? null : Number(stepParam);
  const setSelected = (i: number) => navigate('experiment', { prefix, file, step: i });
  useEffect(() => {
    setData(null);
    const load = () => getJson<ExperimentView>('experiment', { prefix, file }).then(setData, (e: Error) => setError(e.message));
    void load();
    const t = setInterval(() => void load(), 5000);
    return () => clearInterval(t);
  }, [prefix, file]);
  if (error) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  const depth = layers(data.steps);
  const rows = new Map<number, number>();
  const pos = data.steps.map((_, i) => {
    const col = depth[i]!;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    return { x: 10 + col * (NODE_W + GAP_X), y: 10 + row * (NODE_H + GAP_Y) };
  });
  const width = 20 + (Math.max(0, ...depth) + 1) * (NODE_W + GAP_X) - GAP_X;
  const height = 20 + Math.max(1, ...rows.values()) * (NODE_H + GAP_Y) - GAP_Y;
  const step = selected === null ? undefined : data.steps[selected];
  const artifacts = data.steps.some((s) => s.artifact);
  return (
    <div>
      <h2>
        {data.file} <span class="muted small">{data.createdDate ?? ''}</span>
      </h2>
      <svg class="dag" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`DAG of ${data.file}`}>
        {data.steps.flatMap((s, i) =>
          s.dependencies.map((d) => {
            const a = pos[d]!;
            const b = pos[i]!;
            const x1 = a.x + NODE_W;
            const y1 = a.y + NODE_H / 2;
            const x2 = b.x;
            const y2 = b.y + NODE_H / 2;
            return <path key={`${d}-${i}`} class="edge" d={`M${x1},${y1} C${x1 + GAP_X / 2},${y1} ${x2 - GAP_X / 2},${y2} ${x2},${y2}`} />;
          }),
        )}
        {data.steps.map((s, i) => (
          <g
            key={s.index}
            class={`${statusClass(s.status)}${selected === i ? ' selected' : ''}${s.artifact?.drift ? ' drift' : ''}`}
            transform={`translate(${pos[i]!.x},${pos[i]!.y})`}
            onClick={() => setSelected(i)}
            data-step={s.name}
            data-status={s.status ?? ''}
            data-artifact={s.artifact?.id}
            data-drift={s.artifact ? String(s.artifact.drift) : undefined}
          >
            <title>{s.artifact ? `${s.artifact.id}\nplan fingerprint ${s.artifact.planFingerprint ?? '-'}\nstored fingerprint ${s.artifact.recordFingerprint ?? '-'}` : s.name}</title>
            <rect width={NODE_W} height={NODE_H} rx={6} />
            <text x={10} y={22} class="node-name">
              {nodeLabel(s)}
            </text>
            <text x={10} y={42} class="node-status">
              {nodeDetail(s)}
            </text>
          </g>
        ))}
      </svg>
      <table class="steps">
        <thead>
          <tr>
            <th>Step</th>
            <th>Status</th>
            <th>Output</th>
            <th>{artifacts ? 'Fingerprint (plan / stored)' : 'Changes since previous run'}</th>
            <th>Jobs</th>
          </tr>
        </thead>
        <tbody>
          {data.steps.map((s, i) => (
            <tr key={s.index} class={selected === i ? 'selected' : ''} onClick={() => setSelected(i)}>
              <td>{s.artifact ? s.artifact.id : s.name}</td>
              <td>
                <span class={`state st-${s.status ?? 'NONE'}`}>{s.status ?? 'not run'}</span>
              </td>
              <td class="mono small">{s.outputPath}</td>
              <td class="small">
                {s.artifact ? (
                  <ArtifactFingerprints a={s.artifact} />
                ) : s.previousRun === null ? (
                  <span class="muted">no earlier version</span>
                ) : s.previousRun.changes.length === 0 ? (
                  <span class="muted">same version as {s.previousRun.outputPath}</span>
                ) : (
                  <>
                    <div class="muted">vs {s.previousRun.outputPath}</div>
                    {s.previousRun.changes.map((c) => (
                      <div key={c.path} class={`change k${c.kind === '~' ? 'c' : c.kind === '+' ? 'a' : 'r'}`}>
                        {c.kind} {c.path}: {c.kind === '~' ? `${c.before} → ${c.after}` : c.kind === '+' ? c.after : c.before}
                      </div>
                    ))}
                  </>
                )}
              </td>
              <td>
                {s.jobs.map((j) => (
                  <div key={j.jobId}>
                    <a href={jobHref(j.jobId)}>{j.jobId}</a> <span class={`state s-${j.state}`}>{j.state}</span>
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {step && step.externalDependencies.length > 0 && (
        <p class="small muted">
          {step.name} also reads: {step.externalDependencies.join(', ')}
        </p>
      )}
      {step && step.outputPath !== '' && (
        <StepOutputPanel
          key={step.outputPath}
          prefix={prefix}
          name={step.artifact ? step.artifact.id : step.name}
          path={step.outputPath}
          compare={compare}
          onCompare={(c) => navigate('experiment', { prefix, file, step: step.index, compare: c })}
        />
      )}
    </div>
  );
}

function ArtifactFingerprints({ a }: { a: NonNullable<ExperimentStepView['artifact']> }) {
  return (
    <div class="mono">
      <div>{a.planFingerprint ?? <span class="muted">plan: -</span>}</div>
      <div class={a.drift ? 'drift-note' : 'muted'}>
        {a.recordFingerprint === null ? 'no record stored' : a.drift ? `⚠ drift: stored ${a.recordFingerprint}` : `stored ${a.recordFingerprint === a.planFingerprint ? '(same)' : a.recordFingerprint}`}
      </div>
      {a.deps.length > 0 && <div class="muted">deps: {a.deps.join(', ')}</div>}
    </div>
  );
}
