/** lm-eval's output, as the harness job writes it (only the parts `results.json` uses are typed). */
export interface HarnessOutput {
  results?: Record<string, Record<string, unknown>>;
  versions?: Record<string, unknown>;
  'n-shot'?: Record<string, unknown>;
  'n-samples'?: Record<string, unknown>;
  averages?: Record<string, unknown>;
}

/** `results.json` of the eval step: lm-eval's shape with Marin's field names. */
export interface EvalResults {
  results: Record<string, Record<string, unknown>>;
  versions: Record<string, unknown>;
  'n-shot': Record<string, unknown>;
  'n-samples': Record<string, unknown>;
  config: { model: string; model_args: string; limit: number | null };
  model_name: string;
  /** Seconds since the epoch. */
  date: number;
}

/** What goes into `results.json`. */
export interface EvalResultsInput {
  /** lm-eval's output, or `null` when no harness task ran. */
  harness: HarnessOutput | null;
  /** Levanter `eval_lm` metrics (`eval/loss`, `eval/bpb`, `eval/<tag>/loss`, `eval/<tag>/bpb`), or `null`. */
  validation: Record<string, unknown> | null;
  modelName: string;
  modelPath: string;
  limit: number | null;
  /** @default Date.now() / 1000 */
  date?: number;
}

const TAGGED = /^eval\/(.+)\/(loss|bpb)$/;

/**
 * Builds `results.json`: each harness task's lm-eval metrics as they are (`acc,none`,
 * `acc_stderr,none`, …), plus task `validation` with `loss,none`, `bits_per_byte,none` and
 * `byte_perplexity,none` (= 2^bpb) over the validation split and one task `validation/<tag>` per
 * cache tag.
 */
export function buildEvalResults(input: EvalResultsInput): EvalResults {
  const h = input.harness ?? {};
  const results: Record<string, Record<string, unknown>> = {};
  for (const [task, metrics] of Object.entries(h.results ?? {})) results[task] = { alias: task, ...metrics };
  const versions: Record<string, unknown> = { ...(h.versions ?? {}) };
  const nShot: Record<string, unknown> = { ...(h['n-shot'] ?? {}) };
  const v = input.validation;
  if (v !== null) {
    const add = (task: string, loss: unknown, bpb: unknown): void => {
      if (typeof loss !== 'number' && typeof bpb !== 'number') return;
      const entry: Record<string, unknown> = { alias: task };
      if (typeof loss === 'number') entry['loss,none'] = loss;
      if (typeof bpb === 'number') {
        entry['bits_per_byte,none'] = bpb;
        entry['byte_perplexity,none'] = 2 ** bpb;
      }
      results[task] = entry;
      versions[task] = 1;
      nShot[task] = 0;
    };
    add('validation', v['eval/loss'], v['eval/bpb']);
    const tags = new Set<string>();
    for (const key of Object.keys(v)) {
      const m = TAGGED.exec(key);
      if (m !== null) tags.add(m[1] as string);
    }
    for (const tag of [...tags].sort()) add(`validation/${tag}`, v[`eval/${tag}/loss`], v[`eval/${tag}/bpb`]);
  }
  return {
    results,
    versions,
    'n-shot': nShot,
    'n-samples': { ...(h['n-samples'] ?? {}) },
    config: { model: 'levanter', model_args: `path=${input.modelPath}`, limit: input.limit },
    model_name: input.modelName,
    date: input.date ?? Date.now() / 1000,
  };
}
