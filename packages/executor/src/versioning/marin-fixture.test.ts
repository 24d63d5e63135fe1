import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parsePyJson } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import { mirrored } from '../dag/mirrored-value.js';
import { thisOutputPath } from '../dag/output-name.js';
import { versioned } from '../dag/versioned-value.js';
import { silentLogger } from '../logger.js';
import { VersionGraph } from './version-graph.js';

interface StepDescription {
  name?: string;
  config?: unknown;
  override?: string | null;
  copyOf?: number;
}

interface MarinCase {
  prefix: string;
  steps: StepDescription[];
  expected: { md5: string; hash: string; outputPath: string }[];
  canonicalSteps: number[];
  maxDepth: number;
}

// 30 random DAGs (195 steps) versioned by an independent Python model of Marin's compute_version;
// see fixtures/generate-marin-versions.py. parsePyJson keeps Python floats as FloatValue.
const cases = parsePyJson(
  readFileSync(new URL('./fixtures/marin-versions.json', import.meta.url), 'utf8'),
) as unknown as MarinCase[];

function build(node: unknown, steps: ExecutorStep[]): unknown {
  if (Array.isArray(node)) return node.map((n) => build(n, steps));
  if (node === null || typeof node !== 'object' || Object.getPrototypeOf(node) !== Object.prototype) return node;
  const d = node as Record<string, unknown>;
  const step = (key: string): ExecutorStep => steps[d[key] as number] as ExecutorStep;
  if ('$bare' in d) return step('$bare');
  if ('$step' in d) return new InputName(step('$step'), d['name'] as string | null, d['block'] as boolean);
  if ('$hard' in d) return InputName.hardcoded(d['$hard'] as string);
  if ('$v' in d) return versioned(d['$v']);
  if ('$out' in d) return thisOutputPath(d['$out'] as string);
  if ('$mirror' in d) return mirrored(build(d['$mirror'], steps) as string, { budgetGb: d['budget'] as number });
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) out[k] = build(v, steps);
  return out;
}

describe('VersionGraph against a Python model of Marin', () => {
  it('covers dedupe, pseudo-dependencies and the depth rule', () => {
    expect(cases).toHaveLength(30);
    expect(Math.max(...cases.map((c) => c.maxDepth))).toBeGreaterThan(4);
    expect(cases.some((c) => c.canonicalSteps.length < c.steps.length)).toBe(true);
  });

  it.each(cases.map((c, i) => [i, c] as const))('case %i: same version strings, hashes and output paths', (_i, c) => {
    const steps: ExecutorStep[] = [];
    for (const d of c.steps) {
      if (d.copyOf !== undefined) {
        const orig = steps[d.copyOf] as ExecutorStep;
        steps.push(new ExecutorStep({ name: orig.name, fn: null, config: orig.config }));
      } else {
        steps.push(
          new ExecutorStep({ name: d.name as string, fn: null, config: build(d.config, steps), overrideOutputPath: d.override ?? null }),
        );
      }
    }
    const graph = new VersionGraph({ prefix: c.prefix, logger: silentLogger });
    for (const s of steps) graph.computeVersion(s, false);
    const actual = steps.map((s) => ({
      md5: createHash('md5').update(graph.versionStrs.get(s) as string).digest('hex'),
      hash: graph.hashedVersions.get(s),
      outputPath: graph.outputPaths.get(s),
    }));
    expect(actual).toEqual(c.expected);
    expect(graph.steps.map((s) => steps.indexOf(s))).toEqual(c.canonicalSteps);
  });
});
