/**
 * Writes the shipped eval slices: a few of Marin's core lm-eval tasks, each as a handful of records in the
 * schema of the task's own hub dataset (`assets/eval/slices/<task>/<split>.jsonl`), so lm-eval's registered
 * definition of the task (prompt, choices, metrics) runs on them offline. The records restate the facts of
 * `assets/eval/tiny_mc.jsonl` (invented towns), so they are license-free and the same on every run.
 *
 * Run: node --conditions=@marin/source --import tsx packages/pipeline/scripts/make-eval-slices.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const EVAL = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets', 'eval');

interface Mc {
  query: string;
  choices: string[];
  gold: number;
}

const items: Mc[] = readFileSync(join(EVAL, 'tiny_mc.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Mc);
const LABELS = ['A', 'B', 'C', 'D'];
// train / validation / test: 12 / 4 / 4 of the 20 facts: lm-eval samples 11 few-shot candidates for a 10-shot task
// without a test split (it drops the evaluated document when the few-shot and evaluation splits coincide).
const SPLITS: Record<string, Mc[]> = { train: items.slice(0, 12), validation: items.slice(12, 16), test: items.slice(16, 20) };

function write(task: string, split: string, records: unknown[]): void {
  mkdirSync(join(EVAL, 'slices', task), { recursive: true });
  writeFileSync(join(EVAL, 'slices', task, `${split}.jsonl`), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

const answer = (m: Mc): string => m.choices[m.gold] as string;
const wrong = (m: Mc): string => m.choices[(m.gold + 1) % m.choices.length] as string;
const statement = (m: Mc, value: string): string => `${m.query.replace(/\?$/, '')}: ${value}.`;

for (const [split, mcs] of Object.entries(SPLITS)) {
  // allenai/ai2_arc: id, question, choices { text, label }, answerKey
  write('arc_easy', split, mcs.map((m, i) => ({ id: `${split}-${i}`, question: m.query, choices: { text: m.choices, label: LABELS.slice(0, m.choices.length) }, answerKey: LABELS[m.gold] })));
  if (split === 'test') continue;
  // baber/piqa: goal, sol1, sol2, label (the right solution alternates between the two)
  write('piqa', split, mcs.map((m, i) => (i % 2 === 0 ? { goal: m.query, sol1: answer(m), sol2: wrong(m), label: 0 } : { goal: m.query, sol1: wrong(m), sol2: answer(m), label: 1 })));
  // aps/super_glue boolq: question, passage, idx, label (1 = yes)
  write('boolq', split, mcs.map((m, i) => ({ question: `${m.query.replace(/\?$/, '').toLowerCase()} ${i % 2 === 0 ? answer(m) : wrong(m)}`, passage: statement(m, answer(m)), idx: i, label: i % 2 === 0 ? 1 : 0 })));
}
// EleutherAI/lambada_openai: text, whose last word is the target; test split only
write('lambada_openai', 'test', items.map((m) => ({ text: `${m.query} The answer is ${answer(m)}` })));
