import { writeText } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { deleteGcCandidates } from './gc-delete.js';
import { planGc } from './gc-plan.js';

let n = 0;

async function prefixWith(outputs: Record<string, string>, experiments: Record<string, { created: string; refs: string[] } | string>): Promise<string> {
  const prefix = `memory://gc-unit-${++n}`;
  for (const [rel, status] of Object.entries(outputs)) {
    await writeText(`${prefix}/${rel}/.executor_status`, status);
    await writeText(`${prefix}/${rel}/.executor_info`, '{}');
    await writeText(`${prefix}/${rel}/data.bin`, 'x'.repeat(10));
  }
  for (const [name, e] of Object.entries(experiments)) {
    const body =
      typeof e === 'string'
        ? e
        : JSON.stringify({ created_date: e.created, prefix, steps: e.refs.map((r) => ({ output_path: `${prefix}/${r}`, dependencies: [] })) });
    await writeText(`${prefix}/experiments/${name}`, body);
  }
  return prefix;
}

describe('planGc()', () => {
  it('keeps outputs of experiments newer than since, of kept experiments and under kept paths', async () => {
    const prefix = await prefixWith(
      { 'a-000001': 'SUCCESS', 'b-000002': 'SUCCESS', 'c-000003': 'FAILED', 'nested/d-000004': 'SUCCESS' },
      {
        'old-111111.json': { created: '2026-01-01T00:00:00.000000', refs: ['a-000001', 'b-000002'] },
        'new-222222.json': { created: '2026-06-01T00:00:00.000000', refs: ['b-000002'] },
      },
    );
    const since = new Date('2026-03-01T00:00:00');
    const plan = await planGc({ prefix, since });
    expect(plan.candidates.map((c) => c.rel).sort()).toEqual(['a-000001', 'c-000003', 'nested/d-000004']);
    expect(plan.candidates.every((c) => c.sizeBytes === 10 + 2 + 7 || c.sizeBytes === 10 + 2 + 6)).toBe(true);

    const kept = await planGc({ prefix, since, keep: ['old-111111.json', 'nested'] });
    expect(kept.candidates.map((c) => c.rel)).toEqual(['c-000003']);
    expect((await planGc({ prefix })).candidates.map((c) => c.rel).sort()).toEqual(['c-000003', 'nested/d-000004']);
  });

  it('refuses to delete anything while an experiment file cannot be read', async () => {
    const prefix = await prefixWith({ 'a-000001': 'SUCCESS' }, { 'broken-333333.json': '{not json' });
    const warnings: string[] = [];
    const plan = await planGc({ prefix, warn: (m) => void warnings.push(m) });
    expect(plan.experiments).toEqual([expect.objectContaining({ state: 'unreadable' })]);
    expect(warnings).toHaveLength(1);
    await expect(deleteGcCandidates(plan)).rejects.toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { unreadable: [`${prefix}/experiments/broken-333333.json`] } });
  });
});
