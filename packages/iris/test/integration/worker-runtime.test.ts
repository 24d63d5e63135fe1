import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessGroupAlive, pollUntil } from '@marin/rigging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AttemptProcess } from '../../src/worker/attempt-process.js';
import { RunningRecords } from '../../src/worker/running-records.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-worker-runtime-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function node(script: string, lines?: { source: string; line: string }[]): Promise<AttemptProcess> {
  return AttemptProcess.spawn({
    argv: [process.execPath, '-e', script],
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '' },
    onOutput: (source, line) => lines?.push({ source, line }),
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('AttemptProcess', () => {
  it('reports exit 0, and exit 3 with its code', async () => {
    expect(await (await node('process.exit(0)')).exited).toMatchObject({ exitCode: 0, signal: null });
    expect(await (await node('process.exit(3)')).exited).toMatchObject({ exitCode: 3, message: 'Exit code 3' });
  });

  it('leaves no timer behind once an attempt has exited, so a short-lived caller can exit at once', async () => {
    // In a plain Node process (no test runner timers): after `exited` resolves, nothing may keep the
    // event loop alive (a cold `iris job run` used to linger 2 s on the output-drain timer).
    const probe = join(dir, 'probe.mts');
    await writeFile(
      probe,
      `import { AttemptProcess } from ${JSON.stringify(fileURLToPath(new URL('../../src/worker/attempt-process.ts', import.meta.url)))};
const attempt = await AttemptProcess.spawn({ argv: [process.execPath, '-e', 'process.exit(0)'], cwd: ${JSON.stringify(dir)}, env: { PATH: process.env.PATH ?? '' }, onOutput: () => undefined });
await attempt.exited;
setImmediate(() => console.log(JSON.stringify(process.getActiveResourcesInfo().filter((r) => r === 'Timeout'))));
`,
    );
    const out = execFileSync(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', probe], { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8' });
    expect(JSON.parse(out.trim().split('\n').pop() ?? '')).toEqual([]);
  });

  it('runs the command as the leader of its own process group in the given cwd', async () => {
    const lines: { source: string; line: string }[] = [];
    const proc = await node('console.log(process.cwd()); console.log(require("os").constants.signals ? "pgid-check" : "")', lines);
    expect(proc.pgid).toBe(proc.pid);
    await proc.exited;
    expect(lines[0]).toEqual({ source: 'stdout', line: dir });
  });

  it('captures stdout and stderr line by line, including a last line without newline', async () => {
    const lines: { source: string; line: string }[] = [];
    const proc = await node('process.stdout.write("a\\nb\\r\\n"); process.stderr.write("ERROR e1\\n"); process.stdout.write("tail")', lines);
    await proc.exited;
    expect(lines.filter((l) => l.source === 'stdout').map((l) => l.line)).toEqual(['a', 'b', 'tail']);
    expect(lines.filter((l) => l.source === 'stderr').map((l) => l.line)).toEqual(['ERROR e1']);
  });

  it('maps a SIGKILL death to 137 with a message', async () => {
    const proc = await node('setInterval(() => {}, 1000)');
    process.kill(proc.pid, 'SIGKILL');
    expect(await proc.exited).toEqual({ exitCode: 137, signal: 'SIGKILL', message: 'Exit code 137: killed by SIGKILL' });
  });

  it('stops a cooperative process with SIGTERM alone', async () => {
    const proc = await node('setInterval(() => {}, 1000)');
    const status = await proc.stop(10_000);
    expect(status).toMatchObject({ exitCode: 143, signal: 'SIGTERM' });
  });

  it('sends SIGKILL after the grace period to a process ignoring SIGTERM, and its grandchildren die too', async () => {
    const lines: { source: string; line: string }[] = [];
    // The leader ignores SIGTERM and starts a grandchild that ignores it as well.
    const script = `
      process.on('SIGTERM', () => console.log('got SIGTERM, ignoring'));
      const { spawn } = require('child_process');
      const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
      console.log('grandchild ' + child.pid);
      setInterval(() => {}, 1000);`;
    const proc = await node(script, lines);
    await pollUntil(() => lines.some((l) => l.line.startsWith('grandchild ')), { timeoutMs: 20_000 });
    const grandchild = Number(lines.find((l) => l.line.startsWith('grandchild '))?.line.split(' ')[1]);
    expect(pidAlive(grandchild)).toBe(true);
    const started = Date.now();
    const status = await proc.stop(500);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(status).toMatchObject({ exitCode: 137, signal: 'SIGKILL' });
    expect(lines.some((l) => l.line === 'got SIGTERM, ignoring')).toBe(true);
    expect(await pollUntil(() => !pidAlive(grandchild), { timeoutMs: 10_000 })).toBe(true);
    expect(isProcessGroupAlive(proc.pgid)).toBe(false);
  });

  it('kills background processes left in the group when the leader exits', async () => {
    const lines: { source: string; line: string }[] = [];
    const script = `
      const { spawn } = require('child_process');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      console.log('bg ' + child.pid);
      setTimeout(() => process.exit(0), 200);`;
    const proc = await node(script, lines);
    expect(await proc.exited).toMatchObject({ exitCode: 0 });
    const bg = Number(lines.find((l) => l.line.startsWith('bg '))?.line.split(' ')[1]);
    expect(await pollUntil(() => !pidAlive(bg), { timeoutMs: 10_000 })).toBe(true);
  });

  it('samples CPU, memory and process count of the group from /proc', async () => {
    const proc = await node('const a = Buffer.alloc(64 * 1024 * 1024, 1); const end = Date.now() + 1500; while (Date.now() < end) {} console.log(a.length)');
    await new Promise((r) => setTimeout(r, 400));
    proc.sampleUsage();
    await new Promise((r) => setTimeout(r, 400));
    const usage = proc.sampleUsage();
    await proc.exited;
    expect(usage.processCount).toBe(1);
    expect(usage.memoryBytes).toBeGreaterThan(32 * 1024 * 1024);
    expect(usage.peakMemoryBytes).toBeGreaterThanOrEqual(usage.memoryBytes);
    expect(usage.cpuMillicores).toBeGreaterThan(0);
  });

  it('rejects with the spawn error for a missing command', async () => {
    await expect(
      AttemptProcess.spawn({ argv: ['/no/such/binary'], cwd: dir, env: {}, onOutput: () => undefined }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('RunningRecords.killLeftovers()', () => {
  it('kills a recorded group whose leader still has the recorded start time, and only for this worker id', async () => {
    const lines: { source: string; line: string }[] = [];
    const proc = await node('process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1000)', lines);
    await pollUntil(() => lines.length > 0, { timeoutMs: 20_000 });
    const mine = new RunningRecords({ cacheDir: dir, workerId: 'w-1' });
    const other = new RunningRecords({ cacheDir: dir, workerId: 'w-2' });
    await mine.add({ uid: 'u1', pid: proc.pid, pgid: proc.pgid, startTime: proc.startTime, startedAtMs: proc.startedAtMs });
    expect(await other.killLeftovers(200)).toEqual([]);
    expect(pidAlive(proc.pid)).toBe(true);
    expect(await mine.killLeftovers(200)).toEqual(['u1']);
    expect(await proc.exited).toMatchObject({ exitCode: 137 });
  });

  it('leaves a recycled pid alone when the start time differs', async () => {
    const proc = await node('setInterval(() => {}, 1000)');
    const records = new RunningRecords({ cacheDir: dir, workerId: 'w-1' });
    records.add({ uid: 'u1', pid: proc.pid, pgid: proc.pgid, startTime: proc.startTime + 1, startedAtMs: 0 });
    expect(await records.killLeftovers(200)).toEqual([]);
    expect(pidAlive(proc.pid)).toBe(true);
    await proc.stop(1000);
  });
});
