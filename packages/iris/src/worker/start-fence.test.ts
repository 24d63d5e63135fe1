import { describe, expect, it } from 'vitest';
import { StartFence } from './start-fence.js';

describe('StartFence', () => {
  it('stays open for a controller that sends no liveness bound', () => {
    const fence = new StartFence({ taskLeaseMs: 1000 });
    fence.reconciled({ acceptedWorkerTimeMs: 0, livenessGraceMs: 0 });
    expect(fence.open(Number.MAX_SAFE_INTEGER - 1)).toBe(true);
  });

  it('closes a task lease before the grace after the last response the controller accepted', () => {
    const fence = new StartFence({ taskLeaseMs: 1000 });
    fence.reconciled({ acceptedWorkerTimeMs: 50_000, livenessGraceMs: 10_000 });
    expect(fence.startByMs()).toBe(59_000);
    expect(fence.open(59_000)).toBe(true);
    expect(fence.open(59_001)).toBe(false);
  });

  it('counts from the registration until a response was accepted', () => {
    const fence = new StartFence({ taskLeaseMs: 1000 });
    fence.registered(20_000);
    fence.reconciled({ acceptedWorkerTimeMs: 0, livenessGraceMs: 10_000 });
    expect(fence.startByMs()).toBe(29_000);
  });

  it('never moves back for a late request with an older echo', () => {
    const fence = new StartFence({ taskLeaseMs: 1000 });
    fence.reconciled({ acceptedWorkerTimeMs: 50_000, livenessGraceMs: 10_000 });
    fence.reconciled({ acceptedWorkerTimeMs: 40_000, livenessGraceMs: 10_000 });
    expect(fence.startByMs()).toBe(59_000);
  });

  it('clamps a task lease that is not well below the grace to a third of it, warning once per grace', () => {
    const warnings: string[] = [];
    const fence = new StartFence({ taskLeaseMs: 10_000, warn: (m) => warnings.push(m) });
    expect(fence.taskLeaseMs()).toBe(10_000); // no bound known yet
    fence.reconciled({ acceptedWorkerTimeMs: 50_000, livenessGraceMs: 4000 });
    expect(fence.taskLeaseMs()).toBe(1333);
    expect(fence.startByMs()).toBe(50_000 + 4000 - 1333);
    fence.reconciled({ acceptedWorkerTimeMs: 51_000, livenessGraceMs: 4000 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('IRIS_TASK_LEASE_MS');
    fence.reconciled({ acceptedWorkerTimeMs: 52_000, livenessGraceMs: 60_000 });
    expect(fence.taskLeaseMs()).toBe(10_000);
    expect(warnings).toHaveLength(1);
  });

  it('keeps a lease that is already well below the grace', () => {
    const warnings: string[] = [];
    const fence = new StartFence({ taskLeaseMs: 1000, warn: (m) => warnings.push(m) });
    fence.reconciled({ acceptedWorkerTimeMs: 0, livenessGraceMs: 4000 });
    expect(fence.taskLeaseMs()).toBe(1000);
    expect(warnings).toEqual([]);
  });
});
