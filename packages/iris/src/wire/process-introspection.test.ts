import { describe, expect, it } from 'vitest';
import { ProcessIntrospection } from './process-introspection.js';

describe('ProcessIntrospection', () => {
  it('reports this process, takes one profile at a time, stops a CPU profile early and takes a heap snapshot', async () => {
    const p = new ProcessIntrospection('controller', '9.9.9');
    try {
      expect(p.status()).toMatchObject({ role: 'controller', pid: process.pid, version: '9.9.9', nodeVersion: process.version });
      const caller = new AbortController();
      const cpu = p.profile('cpu', 60_000, caller.signal);
      await expect(p.profile('heap', 0, new AbortController().signal)).rejects.toMatchObject({ code: 'IRIS_FAILED_PRECONDITION' });
      await expect(p.profile('flame', 0, new AbortController().signal)).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
      caller.abort(); // the caller went away: the profile ends now with what it has
      expect((JSON.parse((await cpu).toString()) as { nodes: unknown[] }).nodes.length).toBeGreaterThan(0);
      const heap = await p.profile('heap', 0, new AbortController().signal);
      expect(Object.keys(JSON.parse(heap.toString()) as object)).toContain('snapshot');
    } finally {
      p.close();
    }
  }, 120_000);

  it('keeps the last 1000 log lines, oldest first', () => {
    const p = new ProcessIntrospection('controller', '9.9.9');
    try {
      for (let i = 0; i < 1005; i++) p.log('warn', `line ${i}`);
      expect(p.logs(0)).toHaveLength(ProcessIntrospection.LOG_LINES);
      expect(p.logs(0)[0]).toMatchObject({ level: 'warn', message: 'line 5' });
      expect(p.logs(2).map((l) => l.message)).toEqual(['line 1003', 'line 1004']);
    } finally {
      p.close();
    }
  });
});
