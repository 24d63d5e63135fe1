import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController } from '../../src/cluster/start-controller.js';
import type { ControllerHandle } from '../../src/cluster/start-controller.js';
import { createIrisClient } from '../../src/client/iris-client.js';

const TOKEN = 'dashboard-s3cret';
const PAGES = ['', 'index.html', 'app.js', 'app.css', 'jobs', 'no/such/page'];
const GETS = ['overview', 'jobs', 'job?id=/alice/x', 'logs?id=/alice/x', 'logs/stream?id=/alice/x', 'workers', 'budgets', 'autoscaler', 'experiments?prefix=/tmp', 'experiment?prefix=/tmp&file=x.json'];

describe('dashboard with auth on', () => {
  let controller: ControllerHandle;
  let jobId = '';
  beforeAll(async () => {
    controller = await startController({ authToken: TOKEN, reconcileIntervalMs: 100 });
    await using client = createIrisClient({ address: controller.address, token: TOKEN });
    jobId = await client.launchJob({ name: '/alice/x', command: ['true'] });
    expect((await client.clusterStatus()).dashboardUrl).toBe(controller.dashboardUrl);
  });
  afterAll(async () => {
    await controller?.close();
  });

  it('refuses every page and API request without the token', async () => {
    const base = controller.dashboardUrl!;
    for (const path of [...PAGES, ...GETS.map((g) => `api/${g}`)]) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { cookie: 'iris_token=wrong' }] as Record<string, string>[]) {
        const r = await fetch(`${base}${path}`, { headers });
        expect(r.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        await r.body?.cancel();
      }
    }
    const stop = await fetch(`${base}api/job/stop?id=${encodeURIComponent(jobId)}`, { method: 'POST', headers: { 'x-iris-dashboard': '1' } });
    expect(stop.status).toBe(401);
    await expect(stop.json()).resolves.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
    // A wrong token in the link is not exchanged for a cookie.
    const link = await fetch(`${base}?token=wrong`, { redirect: 'manual' });
    expect(link.status).toBe(401);
    expect(link.headers.get('set-cookie')).toBeNull();
  });

  it('serves pages and the API with the token, as a bearer header or the cookie the link sets', async () => {
    const base = controller.dashboardUrl!;
    const link = await fetch(`${base}?token=${TOKEN}`, { redirect: 'manual' });
    expect(link.status).toBe(303);
    expect(link.headers.get('location')).toBe('/');
    const cookie = link.headers.get('set-cookie')!.split(';')[0]!;
    expect(link.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    const page = await fetch(base, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const jobs = await fetch(`${base}api/jobs`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(jobs.status).toBe(200);
    expect((await jobs.json()) as unknown).toMatchObject({ totalCount: 1, jobs: [{ jobId }] });
    const job = await fetch(`${base}api/job?id=${encodeURIComponent(jobId)}`, { headers: { cookie } });
    expect(job.status).toBe(200);
    // A controller without an autoscaler says so rather than failing.
    const scaling = await fetch(`${base}api/autoscaler`, { headers: { cookie } });
    expect(scaling.status).toBe(200);
    await expect(scaling.json()).resolves.toMatchObject({ enabled: false, groups: [], slices: [] });
    // Cross-site forms cannot stop jobs with the cookie alone: the dashboard's header is required.
    const csrf = await fetch(`${base}api/job/stop?id=${encodeURIComponent(jobId)}`, { method: 'POST', headers: { cookie } });
    expect(csrf.status).toBe(412);
    const stop = await fetch(`${base}api/job/stop?id=${encodeURIComponent(jobId)}`, { method: 'POST', headers: { cookie, 'x-iris-dashboard': '1' } });
    expect(stop.status).toBe(200);
    const missing = await fetch(`${base}api/job?id=/alice/none`, { headers: { cookie } });
    expect(missing.status).toBe(404);
    await expect(missing.json()).resolves.toMatchObject({ code: 'IRIS_JOB_NOT_FOUND' });
  });
  it('asks the endpoint proxy (HTTP and gRPC) for the shared token before looking anything up', async () => {
    const base = controller.dashboardUrl!;
    for (const headers of [{}, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
      const r = await fetch(`${base}proxy/alice/x/web/`, { headers });
      expect(r.status).toBe(401);
      await expect(r.json()).resolves.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
    }
    // With the token the lookup happens: nothing is registered under that name.
    const known = await fetch(`${base}proxy/alice/x/web/`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(known.status).toBe(404);
    await expect(known.json()).resolves.toMatchObject({ code: 'IRIS_NOT_FOUND' });
    const { Client, Metadata, credentials, status } = await import('@grpc/grpc-js');
    const grpcCall = (md: Record<string, string>) =>
      new Promise<unknown>((resolve) => {
        const c = new Client(new URL(base).host, credentials.createInsecure());
        const m = new Metadata();
        for (const [k, v] of Object.entries(md)) m.set(k, v);
        c.makeUnaryRequest('/x.Y/Z', (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), m, { deadline: new Date(Date.now() + 10_000) }, (e) => {
          c.close();
          resolve(e);
        });
      });
    expect(await grpcCall({ 'x-iris-endpoint': '/alice/x/rpc' })).toMatchObject({ code: status.UNAUTHENTICATED });
    expect(await grpcCall({ 'x-iris-endpoint': '/alice/x/rpc', authorization: `Bearer ${TOKEN}` })).toMatchObject({ code: status.NOT_FOUND });
  });
});
