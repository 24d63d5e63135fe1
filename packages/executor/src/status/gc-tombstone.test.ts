import { createLease, exists, filesystemFor, writeText } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { GC_TOMBSTONE_FILE, readGcTombstone, reclaimFromGc, writeGcTombstone } from './gc-tombstone.js';

const timings = { heartbeatS: 0.05, timeoutS: 5, pollS: 0.02 };
let n = 0;

async function successOutput(): Promise<string> {
  const out = `memory://gc-tombstone-${++n}/step-abc123`;
  await writeText(`${out}/.executor_status`, 'SUCCESS');
  await writeText(`${out}/data.bin`, 'x');
  return out;
}

const reclaim = (outputPath: string) => reclaimFromGc({ outputPath, label: 'step-abc123', timings, logger: silentLogger });

describe('reclaimFromGc()', () => {
  it('reuses an unmarked output without touching its lease', async () => {
    const out = await successOutput();
    expect(await reclaim(out)).toBe('reuse');
    expect(await exists(`${out}/.executor_status.lock`)).toBe(false);
  });

  it('removes a tombstone under the step lease and reuses the output', async () => {
    const out = await successOutput();
    await writeGcTombstone(out, { gc: 'gc-1', written: 1, status: 'SUCCESS' });
    expect(await reclaim(out)).toBe('reuse');
    expect(await readGcTombstone(out)).toBeNull();
    expect(await exists(`${out}/.executor_status.lock`)).toBe(false);
  });

  it('waits while gc holds the lease and reports the output gone once gc deleted it', async () => {
    const out = await successOutput();
    await writeGcTombstone(out, { gc: 'gc-1', written: 1, status: 'SUCCESS' });
    const gc = createLease(`${out}/.executor_status.lock`, { workerId: 'gc-1-host-1-1', timings });
    expect(await gc.tryAcquire()).toBe(true);
    let settled = false;
    const pending = reclaim(out).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(settled).toBe(false);
    const fs = filesystemFor(out);
    for (const f of ['.executor_status', 'data.bin', GC_TOMBSTONE_FILE]) await fs.rm(`${out}/${f}`, { missingOk: true });
    await gc.release();
    expect(await pending).toBe('gone');
  });

  it('reads a torn tombstone as a mark', async () => {
    const out = await successOutput();
    await writeText(`${out}/${GC_TOMBSTONE_FILE}`, '{"gc": ');
    expect(await readGcTombstone(out)).toEqual({ gc: '', written: 0, status: null });
    expect(await reclaim(out)).toBe('reuse');
    expect(await readGcTombstone(out)).toBeNull();
  });
});
