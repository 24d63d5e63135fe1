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
});
