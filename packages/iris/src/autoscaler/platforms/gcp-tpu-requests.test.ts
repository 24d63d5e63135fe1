import { describe, expect, it } from 'vitest';
import { ScaleGroupSchema } from '../cluster-config.js';
import { createGcpPlatform } from './gcp-platform.js';
import { labelValue, nodeStatus, ownedSlice, queuedResourceStatus } from './gcp-tpu-requests.js';

describe('gcp TPU requests', () => {
  it('maps every documented node state', () => {
    const states = ['STATE_UNSPECIFIED', 'CREATING', 'READY', 'RESTARTING', 'REIMAGING', 'DELETING', 'REPAIRING', 'STOPPED', 'STOPPING', 'STARTING', 'PREEMPTED', 'TERMINATED', 'HIDING', 'HIDDEN', 'UNHIDING', 'UNKNOWN'];
    expect(Object.fromEntries(states.map((s) => [s, nodeStatus(s)]))).toEqual({
      STATE_UNSPECIFIED: 'booting', CREATING: 'booting', READY: 'running', RESTARTING: 'booting', REIMAGING: 'booting', DELETING: 'failed',
      REPAIRING: 'booting', STOPPED: 'failed', STOPPING: 'failed', STARTING: 'booting', PREEMPTED: 'preempted', TERMINATED: 'failed',
      HIDING: 'failed', HIDDEN: 'failed', UNHIDING: 'booting', UNKNOWN: 'booting',
    });
    const queued = ['CREATING', 'ACCEPTED', 'PROVISIONING', 'WAITING_FOR_RESOURCES', 'ACTIVE', 'SUSPENDING', 'SUSPENDED', 'FAILED', 'DELETING'];
    expect(queued.map(queuedResourceStatus)).toEqual(['booting', 'booting', 'booting', 'booting', 'running', 'preempted', 'preempted', 'failed', 'failed']);
  });

  it('keeps label values within GCP rules and recognises its own labels', () => {
    expect(labelValue('My.Cluster/A')).toBe('my-cluster-a');
    expect(labelValue('x'.repeat(80))).toHaveLength(63);
    const labels = { 'iris-cluster': 'research', 'iris-scale-group': 'g', 'iris-slice-id': 's', 'managed-by': 'iris' };
    expect(ownedSlice(labels, 'research')).toEqual({ sliceId: 's', group: 'g' });
    expect(ownedSlice(labels, 'other')).toBeUndefined();
    expect(ownedSlice({ ...labels, 'managed-by': 'someone' }, 'research')).toBeUndefined();
  });

  it('sends through an injected fetch, without loading credentials when a token source is given', async () => {
    const seen: { url: string; method: string; body: unknown }[] = [];
    const platform = createGcpPlatform({
      project: 'p',
      zones: [],
      getAccessToken: async () => undefined,
      fetch: async (url, init) => {
        seen.push({ url, method: init.method, body: init.body ? JSON.parse(init.body) : undefined });
        return { status: 200, text: async () => JSON.stringify({ name: 'projects/p/locations/z/operations/o', done: true }) };
      },
    });
    const group = ScaleGroupSchema.parse({ name: 'g', slice: { kind: 'tpu', variant: 'v6e-8' }, resources: { cpu: 8, memory_bytes: 1 }, zone: 'z' });
    await platform.createSlice({ sliceId: 'g-1-0', group, controllerAddress: 'c:1', authToken: "it's secret" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ url: 'https://tpu.googleapis.com/v2/projects/p/locations/z/nodes?nodeId=g-1-0', method: 'POST', body: { acceleratorType: 'v6e-8' } });
    expect((seen[0]!.body as { metadata: Record<string, string> }).metadata['startup-script']).toContain(`--setenv=IRIS_AUTH_TOKEN='it'\\''s secret'`);
    await platform.close();
  });
});
