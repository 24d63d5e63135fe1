import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIrisClient } from '../../src/client/iris-client.js';
import type { IrisClient } from '../../src/client/iris-client.js';
import { startController } from '../../src/cluster/start-controller.js';
import type { ControllerHandle } from '../../src/cluster/start-controller.js';

let controller: ControllerHandle;
let stateDir: string;
let admin: IrisClient;
let adminKey: string;
let aliceKey: string;
let aliceKeyId: string;
let bobsJob: string;

async function login(key: string): Promise<string> {
  const base = controller.dashboardUrl!;
  const r = await fetch(`${base}login`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ key }).toString() });
  expect(r.status).toBe(303);
  const setCookie = r.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/HttpOnly; SameSite=Strict/);
  expect(setCookie).not.toContain(key);
  return setCookie.split(';')[0]!;
}

const stop = (cookie: string, jobId: string) =>
  fetch(`${controller.dashboardUrl!}api/job/stop?id=${encodeURIComponent(jobId)}`, { method: 'POST', headers: { cookie, 'x-iris-dashboard': '1' } });

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'iris-dashboard-identities-'));
  controller = await startController({ stateDir, authMode: 'api-keys', authToken: 'dash-worker-secret', bootstrapAdmin: 'root', warn: () => {} });
  adminKey = readFileSync(controller.bootstrapKeyFile!, 'utf8').trim();
  admin = createIrisClient({ address: controller.address, token: adminKey });
  const a = await admin.createApiKey({ user: 'alice' });
  aliceKey = a.key;
  aliceKeyId = a.info.keyId;
  await using bob = createIrisClient({ address: controller.address, token: (await admin.createApiKey({ user: 'bob' })).key });
  bobsJob = await bob.launchJob({ name: 'queued', command: ['true'] });
});
afterAll(async () => {
  await admin?.close();
  await controller?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('dashboard sessions with per-user API keys', () => {
  it('sends a browser without a session to the login form and refuses the API', async () => {
    const base = controller.dashboardUrl!;
    const page = await fetch(base, { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login');
    const form = await fetch(`${base}login`);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('<form method="post" action="/login"');
    for (const headers of [{}, { cookie: 'iris_session=forged' }, { authorization: 'Bearer dash-worker-secret' }] as Record<string, string>[]) {
      const api = await fetch(`${base}api/jobs`, { headers });
      expect(api.status, JSON.stringify(headers)).toBe(401);
      await expect(api.json()).resolves.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
    }
    const bad = await fetch(`${base}login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'key=iris-key-0000000000000000.nope' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();
    // A form posted from another site cannot log a browser in.
    const crossSite = await fetch(`${base}login`, { method: 'POST', headers: { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ key: aliceKey }).toString() });
    expect(crossSite.status).toBe(400);
    expect(crossSite.headers.get('set-cookie')).toBeNull();
  });

  it('logs a user in with their key and lets the role decide: a user cannot stop another user\u2019s job, an admin can', async () => {
    const aliceCookie = await login(aliceKey);
    const me = await fetch(`${controller.dashboardUrl!}api/whoami`, { headers: { cookie: aliceCookie } });
    await expect(me.json()).resolves.toEqual({ user: 'alice', role: 'user', authMode: 'api-keys' });
    const refused = await stop(aliceCookie, bobsJob);
    expect(refused.status).toBe(403);
    await expect(refused.json()).resolves.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    expect((await admin.getJob(bobsJob)).state).toBe('PENDING');
    const adminCookie = await login(adminKey);
    const allowed = await stop(adminCookie, bobsJob);
    expect(allowed.status).toBe(200);
    expect((await admin.getJob(bobsJob)).state).toBe('KILLED');
    const audit = await admin.listAuditLog();
    expect(audit.find((e) => e.action === 'job.stop')).toMatchObject({ actor: 'root', target: bobsJob, details: { via: 'dashboard', owner: 'bob' } });
  });

  it('ends a session at once when its key is revoked', async () => {
    const cookie = await login(aliceKey);
    expect((await fetch(`${controller.dashboardUrl!}api/jobs`, { headers: { cookie } })).status).toBe(200);
    await admin.revokeApiKey(aliceKeyId);
    const after = await fetch(`${controller.dashboardUrl!}api/jobs`, { headers: { cookie } });
    expect(after.status).toBe(401);
    await expect(after.json()).resolves.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
  });

  it('ends a session on logout', async () => {
    const cookie = await login(adminKey);
    const out = await fetch(`${controller.dashboardUrl!}api/logout`, { method: 'POST', headers: { cookie, 'x-iris-dashboard': '1' } });
    expect(out.status).toBe(200);
    expect((await fetch(`${controller.dashboardUrl!}api/jobs`, { headers: { cookie } })).status).toBe(401);
  });
});
