import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLease, exists, writeText } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { writeGcInfo, writeGcPrefix } from '../../test/helpers/gc-prefix.js';
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

describe('planGc() rules that keep what is in use', () => {
  const timings = { heartbeatS: 1, timeoutS: 30, pollS: 0.1 };

  async function holdLease(outputPath: string): Promise<void> {
    const lease = createLease(`${outputPath}/.executor_status.lock`, { workerId: 'host-7-1', timings });
    expect(await lease.tryAcquire()).toBe(true);
  }

  it('keeps the inputs of a RUNNING step and of a leased step, read from their .executor_info', async () => {
    const prefix = `memory://gc-unit-${++n}`;
    await writeGcPrefix(prefix, { 'a-000001': 'SUCCESS', 'c-000003': 'SUCCESS', 'r-000002': 'RUNNING', 'stale-000009': 'SUCCESS' });
    await writeGcInfo(`${prefix}/r-000002`, [`${prefix}/a-000001`]);
    await holdLease(`${prefix}/r-000002`);
    // A step that holds its lease but has not written RUNNING yet.
    await writeGcInfo(`${prefix}/l-000004`, [`${prefix}//c-000003/`]);
    await holdLease(`${prefix}/l-000004`);
    const plan = await planGc({ prefix, timings });
    const byRel = Object.fromEntries(plan.candidates.map((c) => [c.rel, [c.action, c.reason]]));
    expect(byRel).toEqual({
      'a-000001': ['keep', 'input of r-000002 (RUNNING)'],
      'c-000003': ['keep', 'input of l-000004 (live lease held by host-7-1)'],
      'r-000002': ['keep', 'RUNNING'],
      'l-000004': ['keep', 'live lease held by host-7-1'],
      'stale-000009': ['delete', null],
    });
  });

  it('counts an experiment older than since as live while one of its steps is RUNNING', async () => {
    const prefix = `memory://gc-unit-${++n}`;
    await writeGcPrefix(prefix, { 'a-000001': 'SUCCESS', 'r-000002': 'RUNNING', 'b-000003': 'SUCCESS' }, {
      'old-111111.json': { created: '2026-01-01T00:00:00.000000', refs: ['a-000001', 'r-000002'] },
      'older-222222.json': { created: '2026-01-01T00:00:00.000000', refs: ['b-000003'] },
    });
    await holdLease(`${prefix}/r-000002`);
    const plan = await planGc({ prefix, since: new Date('2026-03-01T00:00:00'), timings });
    expect(plan.experiments.map((e) => [e.path.slice(e.path.lastIndexOf('/') + 1), e.state, e.liveBecause]).sort()).toEqual([
      ['old-111111.json', 'live', 'running'],
      ['older-222222.json', 'superseded', null],
    ]);
    expect(plan.candidates.map((c) => [c.rel, c.action])).toEqual([['b-000003', 'delete']]);
  });

  it('reports references of a live experiment outside the prefix and never deletes there', async () => {
    const prefix = `memory://gc-unit-${++n}/p`;
    const elsewhere = `memory://gc-unit-${n}/elsewhere`;
    await writeGcPrefix(elsewhere, { 'x-000001': 'SUCCESS', 'y-000002': 'SUCCESS' });
    await writeGcPrefix(prefix, { 'a-000001': 'SUCCESS', 'b-000002': 'SUCCESS' }, {
      'live-111111.json': { created: '2026-06-01T00:00:00.000000', refs: ['a-000001', `${elsewhere}/x-000001`] },
    });
    const plan = await planGc({ prefix, timings });
    expect(plan.outside).toEqual([{ experiment: `${prefix}/experiments/live-111111.json`, path: `${elsewhere}/x-000001` }]);
    expect(plan.candidates.map((c) => c.rel)).toEqual(['b-000002']);
    const result = await deleteGcCandidates(plan, { timings: { heartbeatS: 0.05, timeoutS: 0.1, pollS: 0.05 }, waitMs: 150 });
    expect(result.deleted.map((c) => c.rel)).toEqual(['b-000002']);
    for (const rel of ['x-000001', 'y-000002']) expect(await exists(`${elsewhere}/${rel}/data.bin`)).toBe(true);
    expect(await exists(`${prefix}/a-000001/data.bin`)).toBe(true);
  });
});

describe('planGc() compares paths canonically', () => {
  it('a local prefix given through a symlink, with //, /./ or a trailing slash lists nothing a live experiment references', async () => {
    await using tmp = await localTempDir();
    const real = join(tmp.path, 'real');
    await writeGcPrefix(real, { 'a-000001': 'SUCCESS', 'b-000002': 'SUCCESS' }, { 'live-111111.json': { created: '2026-06-01T00:00:00.000000', refs: ['a-000001'] } });
    await symlink(real, join(tmp.path, 'link'));
    for (const spelling of [join(tmp.path, 'link'), `${tmp.path}//real`, `${tmp.path}/./real/`, `file://${tmp.path}/link/`]) {
      const plan = await planGc({ prefix: spelling });
      expect(plan.prefix, spelling).toBe(real);
      expect(plan.candidates.map((c) => c.path), spelling).toEqual([join(real, 'b-000002')]);
      expect(plan.reachable, spelling).toBe(1);
    }
  });

  it('an experiment that spells its outputs through a symlink still keeps them', async () => {
    await using tmp = await localTempDir();
    const real = join(tmp.path, 'real');
    await mkdir(real);
    await symlink(real, join(tmp.path, 'link'));
    await writeGcPrefix(real, { 'a-000001': 'SUCCESS', 'b-000002': 'SUCCESS' }, { 'live-111111.json': { created: '2026-06-01T00:00:00.000000', refs: [`${tmp.path}/link//a-000001/`] } });
    expect((await planGc({ prefix: real })).candidates.map((c) => c.rel)).toEqual(['b-000002']);
  });

  it('a URL prefix spelled with //, /./ or a trailing slash matches the references', async () => {
    const root = `memory://gc-unit-${++n}`;
    await writeGcPrefix(`${root}/p`, { 'a-000001': 'SUCCESS', 'b-000002': 'SUCCESS' }, { 'live-111111.json': { created: '2026-06-01T00:00:00.000000', refs: ['a-000001'] } });
    for (const spelling of [`${root}//p`, `${root}/./p/`, `${root}/p//`]) {
      const plan = await planGc({ prefix: spelling });
      expect(plan.prefix, spelling).toBe(`${root}/p`);
      expect(plan.candidates.map((c) => c.path), spelling).toEqual([`${root}/p/b-000002`]);
    }
  });
});

async function localTempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await realpath(await mkdtemp(join(tmpdir(), 'gc-plan-')));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}
