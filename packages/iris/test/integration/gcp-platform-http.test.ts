import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScaleGroupSchema, parseClusterConfig } from '../../src/autoscaler/cluster-config.js';
import { createGcpPlatform } from '../../src/autoscaler/platforms/gcp-platform.js';
import type { GcpPlatformOptions } from '../../src/autoscaler/platforms/gcp-platform.js';
import type { SliceRequest } from '../../src/autoscaler/platforms/platform.js';
import { startFakeTpuApi } from '../helpers/fake-tpu-api.js';
import type { FakeTpuApi } from '../helpers/fake-tpu-api.js';

// The gcp platform's production request code over real HTTP, against a TPU API v2 stand-in on
// 127.0.0.1 that answers with the documented response shapes.
const ZONE = 'us-central2-b';
const LOCATION = `projects/marin-test/locations/${ZONE}`;

let api: FakeTpuApi;
beforeEach(async () => {
  api = await startFakeTpuApi();
});
afterEach(async () => {
  await api.close();
});

const platformFor = (extra: Partial<GcpPlatformOptions> = {}) =>
  createGcpPlatform({ project: 'marin-test', zones: [ZONE], cluster: 'research', endpoint: api.endpoint, getAccessToken: async () => 'token-1', operationPollMs: 5, ...extra });

const request = (variant: string, opts: { preemptible?: boolean; sliceId?: string } = {}): SliceRequest => ({
  sliceId: opts.sliceId ?? 'tpu-a-mfx3k2-0',
  controllerAddress: '10.0.0.2:10000',
  group: ScaleGroupSchema.parse({
    name: 'tpu-a',
    slice: { kind: 'tpu', variant, preemptible: opts.preemptible ?? false },
    resources: { cpu: 96, memory_bytes: 200 * 2 ** 30 },
    zone: ZONE,
    attributes: { pool: 'research' },
  }),
});

describe('gcp platform over HTTP', () => {
  it('creates a single-VM slice as one node with labels, network and startup script, waiting for the operation', async () => {
    await using platform = platformFor();
    await platform.createSlice(request('v4-8'));
    const create = api.requests[0]!;
    expect(create.method).toBe('POST');
    expect(create.url).toBe(`/v2/${LOCATION}/nodes?nodeId=tpu-a-mfx3k2-0`);
    expect(create.authorization).toBe('Bearer token-1');
    const body = create.body as Record<string, any>;
    expect(body).toMatchObject({
      acceleratorType: 'v4-8',
      runtimeVersion: 'v2-alpha-tpuv5-lite',
      networkConfig: { network: 'default', enableExternalIps: true },
      labels: { 'iris-cluster': 'research', 'iris-scale-group': 'tpu-a', 'iris-slice-id': 'tpu-a-mfx3k2-0', 'managed-by': 'iris' },
    });
    expect(body['schedulingConfig']).toBeUndefined();
    const script = body['metadata']['startup-script'] as string;
    expect(script).toContain("npm install -g --no-audit --no-fund '@marin/iris'");
    expect(script).toMatch(/worker start '--controller' '10\.0\.0\.2:10000' .*'--tpu' 'v4-8' '--tpu-name' 'tpu-a-mfx3k2-0'/);
    expect(script).toContain(`--worker-id 'tpu-a-mfx3k2-0-'"$VM" --advertise-host "$IP" --tpu-worker-id "$VM"`);
    expect(script).toMatch(/'--attributes' '[^']*pool=research[^']*scale-group=tpu-a[^']*slice-id=tpu-a-mfx3k2-0[^']*zone=us-central2-b/);
    // The create operation was polled to completion.
    expect(api.requests[1]).toMatchObject({ method: 'GET', url: expect.stringMatching(new RegExp(`^/v2/${LOCATION}/operations/operation-`)) });
  });

  it('maps node states to slice statuses and deletes the node', async () => {
    await using platform = platformFor();
    await platform.createSlice(request('v4-8'));
    const node = api.nodes.get(`${LOCATION}/nodes/tpu-a-mfx3k2-0`)!;
    const expected: Record<string, string> = {
      CREATING: 'booting',
      READY: 'running',
      REPAIRING: 'booting',
      RESTARTING: 'booting',
      PREEMPTED: 'preempted',
      DELETING: 'failed',
      STOPPED: 'failed',
      TERMINATED: 'failed',
    };
    for (const [state, status] of Object.entries(expected)) {
      node['state'] = state;
      expect(await platform.listSlices(), state).toEqual([{ sliceId: 'tpu-a-mfx3k2-0', group: 'tpu-a', status }]);
    }
    expect(api.requests.at(-1)!.url).toBe(`/v2/${LOCATION}/queuedResources?pageSize=500`);
    await platform.deleteSlice('tpu-a-mfx3k2-0');
    expect(api.requests.find((r) => r.method === 'DELETE')!.url).toBe(`/v2/${LOCATION}/nodes/tpu-a-mfx3k2-0`);
    expect(api.nodes.size).toBe(0);
    expect(await platform.listSlices()).toEqual([]);
    await platform.deleteSlice('tpu-a-mfx3k2-0'); // a missing slice is not an error
  });

  it('asks for preemptible capacity on a single-VM node', async () => {
    await using platform = platformFor();
    await platform.createSlice(request('v4-8', { preemptible: true }));
    expect((api.requests[0]!.body as Record<string, unknown>)['schedulingConfig']).toEqual({ preemptible: true });
  });

  it('creates a multi-VM slice as one queued resource and follows its states', async () => {
    await using platform = platformFor();
    await platform.createSlice(request('v5litepod-16', { preemptible: true, sliceId: 'tpu-a-mfx3k2-1' }));
    const create = api.requests[0]!;
    expect(create.method).toBe('POST');
    expect(create.url).toBe(`/v2/${LOCATION}/queuedResources?queuedResourceId=tpu-a-mfx3k2-1`);
    const body = create.body as Record<string, any>;
    expect(body['spot']).toEqual({});
    expect(body['tpu']['nodeSpec']).toHaveLength(1);
    expect(body['tpu']['nodeSpec'][0]).toMatchObject({
      parent: LOCATION,
      nodeId: 'tpu-a-mfx3k2-1',
      node: { acceleratorType: 'v5litepod-16', labels: { 'iris-slice-id': 'tpu-a-mfx3k2-1', 'managed-by': 'iris' } },
    });
    expect(body['tpu']['nodeSpec'][0]['node']['metadata']['startup-script']).toContain("'--tpu' 'v5litepod-16'");

    const qr = api.queuedResources.get(`${LOCATION}/queuedResources/tpu-a-mfx3k2-1`)!;
    expect(await platform.listSlices()).toEqual([{ sliceId: 'tpu-a-mfx3k2-1', group: 'tpu-a', status: 'booting' }]); // WAITING_FOR_RESOURCES
    qr['state'] = { state: 'ACTIVE' };
    const nodeSpec = (qr['tpu'] as any).nodeSpec[0];
    api.nodes.set(`${LOCATION}/nodes/tpu-a-mfx3k2-1`, { ...nodeSpec.node, name: `${LOCATION}/nodes/tpu-a-mfx3k2-1`, state: 'READY' });
    expect(await platform.listSlices()).toEqual([{ sliceId: 'tpu-a-mfx3k2-1', group: 'tpu-a', status: 'running' }]);
    qr['state'] = { state: 'SUSPENDED' };
    expect(await platform.listSlices()).toEqual([{ sliceId: 'tpu-a-mfx3k2-1', group: 'tpu-a', status: 'preempted' }]);
    qr['state'] = { state: 'FAILED' };
    expect(await platform.listSlices()).toEqual([{ sliceId: 'tpu-a-mfx3k2-1', group: 'tpu-a', status: 'failed' }]);

    await platform.deleteSlice('tpu-a-mfx3k2-1');
    expect(api.requests.find((r) => r.method === 'DELETE')!.url).toBe(`/v2/${LOCATION}/queuedResources/tpu-a-mfx3k2-1?force=true`);
    expect(api.queuedResources.size).toBe(0);
    expect(api.nodes.size).toBe(0);
  });

  it('leaves nothing behind when the create operation fails, and reports exhausted capacity as retryable', async () => {
    await using platform = platformFor();
    api.failNextCreate({ code: 8, message: 'There is no more capacity in the zone "us-central2-b"' });
    await expect(platform.createSlice(request('v4-8'))).rejects.toMatchObject({ code: 'IRIS_INSUFFICIENT_RESOURCES', retryable: true });
    expect(api.requests.some((r) => r.method === 'DELETE' && r.url === `/v2/${LOCATION}/nodes/tpu-a-mfx3k2-0`)).toBe(true);
    expect(api.nodes.size).toBe(0);

    api.respondNext(429, { error: { code: 429, message: "Quota 'TPUV4PodPerProjectPerZoneForTPUAPI' exhausted", status: 'RESOURCE_EXHAUSTED' } });
    await expect(platform.createSlice(request('v4-8'))).rejects.toMatchObject({ code: 'IRIS_INSUFFICIENT_RESOURCES', message: expect.stringContaining('Quota') });
    api.respondNext(403, { error: { code: 403, message: 'Permission denied', status: 'PERMISSION_DENIED' } });
    await expect(platform.listSlices()).rejects.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
  });

  it('lists only its own cluster and can delete a slice it did not create (restart adoption)', async () => {
    {
      await using first = platformFor();
      await first.createSlice(request('v4-8'));
    }
    api.nodes.set(`${LOCATION}/nodes/other`, { name: `${LOCATION}/nodes/other`, state: 'READY', labels: { 'iris-cluster': 'someone-else', 'iris-scale-group': 'x', 'iris-slice-id': 'other', 'managed-by': 'iris' } });
    api.nodes.set(`${LOCATION}/nodes/unlabelled`, { name: `${LOCATION}/nodes/unlabelled`, state: 'READY' });
    await using second = platformFor();
    expect(await second.listSlices()).toEqual([{ sliceId: 'tpu-a-mfx3k2-0', group: 'tpu-a', status: 'booting' }]);
    await second.deleteSlice('tpu-a-mfx3k2-0');
    expect([...api.nodes.keys()].sort()).toEqual([`${LOCATION}/nodes/other`, `${LOCATION}/nodes/unlabelled`]);
  });

  it('is configured from a cluster config, which requires TPU groups with a zone', () => {
    const base = { controller: { state_dir: '/tmp/x' }, platforms: { cloud: { kind: 'gcp', project: 'marin-test', tpu_api_endpoint: api.endpoint } } };
    const config = parseClusterConfig({ ...base, scale_groups: [{ name: 'v4', slice: { kind: 'tpu', variant: 'v4-8' }, resources: { cpu: 1, memory_bytes: 1 }, zone: ZONE }] });
    expect(config.platforms['cloud']).toMatchObject({ kind: 'gcp', cluster: 'iris', network: 'default', enable_external_ips: true, tpu_api_endpoint: api.endpoint });
    expect(() => parseClusterConfig({ ...base, scale_groups: [{ name: 'cpu', slice: { kind: 'cpu' }, resources: { cpu: 1, memory_bytes: 1 } }] })).toThrow(/scale_groups\.0\.slice\.kind: a gcp platform creates TPU slices only/);
  });
});
