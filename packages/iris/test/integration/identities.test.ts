import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { pollUntil } from '@marin/rigging';
import { IrisError } from '../../src/errors.js';
import { WorkerServiceClient } from '../../src/gen/iris/v1/worker.js';
import { createAuthInterceptor } from '../../src/wire/token-auth.js';
import { createIrisClient } from '../../src/client/iris-client.js';
import type { IrisClient } from '../../src/client/iris-client.js';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';
import { createClusterAdminClient } from '../../src/client/cluster-admin-client.js';
import type { LocalClusterHandle } from '../../src/cluster/local-cluster.js';
import { IRIS_SOURCE_ARGV } from '../helpers/cli-process.js';

const WORKER_TOKEN = 'identities-worker-secret';
const SLEEP = ['node', '-e', 'setTimeout(() => {}, 60000)'];

let cluster: LocalClusterHandle;
let stateDir: string;
let admin: IrisClient;
let alice: IrisClient;
let bob: IrisClient;
let aliceKey: string;
let aliceKeyId: string;

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'iris-identities-'));
  cluster = await startLocalCluster({ workers: 1, stateDir, authMode: 'api-keys', authToken: WORKER_TOKEN, bootstrapAdmin: 'root', reconcileIntervalMs: 100, cpuMillicores: 8000 });
  const adminKey = readFileSync(cluster.controller.bootstrapKeyFile!, 'utf8').trim();
  admin = createIrisClient({ address: cluster.address, token: adminKey });
  const a = await admin.createApiKey({ user: 'alice', name: 'laptop' });
  aliceKey = a.key;
  aliceKeyId = a.info.keyId;
  alice = createIrisClient({ address: cluster.address, token: a.key });
  bob = createIrisClient({ address: cluster.address, token: (await admin.createApiKey({ user: 'bob' })).key });
});
afterAll(async () => {
  await Promise.all([admin?.close(), alice?.close(), bob?.close()]);
  await cluster?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('per-user API keys: authentication', () => {
  it('writes the bootstrap admin key only to a 0600 file and knows its holder as admin', async () => {
    expect(statSync(cluster.controller.bootstrapKeyFile!).mode & 0o777).toBe(0o600);
    await expect(admin.whoAmI()).resolves.toMatchObject({ user: 'root', role: 'admin', authMode: 'api-keys' });
    await expect(alice.whoAmI()).resolves.toMatchObject({ user: 'alice', role: 'user', keyId: aliceKeyId });
  });

  it('refuses a call with no credential, a made-up key or a key with a wrong secret as IRIS_UNAUTHENTICATED', async () => {
    for (const token of [undefined, 'nonsense', `iris-key-${aliceKeyId}.${'A'.repeat(43)}`]) {
      await using c = createIrisClient({ address: cluster.address, ...(token ? { token } : {}) });
      await expect(c.listJobs(), String(token)).rejects.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
    }
  });

  it('keeps only a hash: the key is nowhere in the controller database', () => {
    for (const file of ['controller.sqlite3', 'controller.sqlite3-wal']) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(stateDir, file));
      } catch {
        continue;
      }
      expect(bytes.includes(Buffer.from(aliceKey)), file).toBe(false);
      expect(bytes.includes(Buffer.from(aliceKey.split('.')[1]!)), file).toBe(false);
    }
  });

  it('lets the workers\u2019 shared token do only what workers do', async () => {
    await using worker = createIrisClient({ address: cluster.address, token: WORKER_TOKEN });
    await expect(worker.launchJob({ name: '/root/sneaky', command: ['true'] })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(worker.createApiKey({ user: 'mallory', role: 'admin' })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(worker.whoAmI()).resolves.toMatchObject({ role: 'worker', user: null });
  });
});

describe('per-user API keys: roles and rules', () => {
  it('takes the job\u2019s user from the key, never from the request', async () => {
    const id = await alice.launchJob({ name: '/bob/pretend', command: ['true'] });
    expect(id).toBe('/alice/pretend');
    expect((await admin.getJob(id)).user).toBe('alice');
  });

  it('starts a new user at max band BATCH and refuses PRODUCTION to anyone but an admin', async () => {
    await expect(alice.getUserBudget('alice')).resolves.toMatchObject({ maxBand: 'BATCH' });
    await expect(alice.launchJob({ name: 'prod', command: ['true'], priority: 'PRODUCTION' })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    const id = await admin.launchJob({ name: 'prod', command: ['true'], priority: 'PRODUCTION' });
    expect((await admin.getJob(id)).priority).toBe('PRODUCTION');
  });

  it('refuses a user who tries to raise their own band or budget, and changes nothing', async () => {
    await expect(alice.setUserBudget({ user: 'alice', budgetLimit: 0, maxBand: 'PRODUCTION' })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(alice.setUserBudget({ user: 'alice', budgetLimit: 1_000_000, maxBand: 'BATCH' })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(admin.getUserBudget('alice')).resolves.toMatchObject({ maxBand: 'BATCH', budgetLimit: 0 });
    await expect(alice.createApiKey({ user: 'alice', role: 'admin' })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(alice.whoAmI()).resolves.toMatchObject({ role: 'user' });
  });

  it('refuses a user who stops another user\u2019s job; its owner and an admin may, and the admin\u2019s stop is audited', async () => {
    const bobsJob = await bob.launchJob({ name: 'long', command: SLEEP });
    await expect(alice.terminateJob(bobsJob)).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    expect((await admin.getJob(bobsJob)).state).not.toBe('KILLED');
    await admin.terminateJob(bobsJob);
    expect((await admin.getJob(bobsJob)).state).toBe('KILLED');
    const own = await alice.launchJob({ name: 'mine', command: SLEEP });
    await alice.terminateJob(own);
    expect((await alice.getJob(own)).state).toBe('KILLED');
    const audit = await admin.listAuditLog();
    expect(audit.filter((e) => e.action === 'job.stop').map((e) => e.target)).toEqual([bobsJob]);
  });

  it('lets a user see and revoke only their own keys', async () => {
    const keys = await alice.listApiKeys();
    expect(keys.map((k) => k.user)).toEqual(['alice']);
    expect(JSON.stringify(keys)).not.toContain(aliceKey);
    await expect(alice.listApiKeys({ user: 'bob' })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    const bobsKey = (await admin.listApiKeys({ user: 'bob' }))[0]!;
    await expect(alice.revokeApiKey(bobsKey.keyId)).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(bob.whoAmI()).resolves.toMatchObject({ user: 'bob' });
  });

  it('records admin actions in the audit log, which only admins read', async () => {
    await admin.setUserBudget({ user: 'alice', budgetLimit: 500, maxBand: 'INTERACTIVE' });
    const audit = await admin.listAuditLog();
    const actions = audit.map((e) => `${e.action} ${e.target}`);
    expect(actions).toEqual(expect.arrayContaining(['user.create root', 'user.create alice', 'user.create bob', `key.create ${aliceKeyId}`, 'budget.set alice']));
    expect(audit.find((e) => e.action === 'budget.set')).toMatchObject({ actor: 'root', details: { before: { maxBand: 'PRIORITY_BAND_BATCH' }, after: { budgetLimit: 500, maxBand: 'PRIORITY_BAND_INTERACTIVE' } } });
    expect(audit.map((e) => e.id)).toEqual([...audit.map((e) => e.id)].sort((x, y) => y - x));
    await expect(alice.listAuditLog()).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
  });

  it('gives a task its own job\u2019s credential: the task acts as its user, never as the worker', async () => {
    const id = await alice.launchJob({ name: 'who', command: [...IRIS_SOURCE_ARGV, 'whoami', '--json'] });
    const job = await alice.waitForJob(id, { timeoutMs: 60_000 });
    const { entries } = await alice.fetchLogs({ jobId: id });
    const text = entries.map((e) => e.data).join('\n');
    expect(job.state, text).toBe('SUCCEEDED');
    expect(JSON.parse(text.slice(text.indexOf('{')))).toMatchObject({ user: 'alice', role: 'job', authMode: 'api-keys' });
  });
});

describe('per-user API keys: task exec', () => {
  it("lets a job's owner run a command in its task and refuses another user", async () => {
    const jobId = await alice.launchJob({ name: 'exec-owned', command: ['node', '-e', "console.log('ready'); setInterval(() => {}, 1000)"] });
    expect(await pollUntil(async () => (await alice.fetchLogs({ jobId })).entries.some((e) => e.data === 'ready'), { timeoutMs: 60_000 })).toBe(true);
    const drain = async (c: IrisClient) => {
      const out: string[] = [];
      for await (const ev of c.execInTask(`${jobId}/0`, ['node', '-e', 'console.log(process.env.IRIS_JOB_ID)'])) if (ev.kind === 'stdout') out.push(ev.data.toString());
      return out.join('');
    };
    expect((await drain(alice)).trim()).toBe(jobId);
    await expect(drain(bob)).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await alice.terminateJob(jobId);
  });
});

describe('per-user API keys: state queries', () => {
  it('lets an admin query the state database and the controller process, and refuses a user', async () => {
    const adminKey = readFileSync(cluster.controller.bootstrapKeyFile!, 'utf8').trim();
    await using asAdmin = createClusterAdminClient({ address: cluster.address, token: adminKey });
    await using asAlice = createClusterAdminClient({ address: cluster.address, token: aliceKey });
    const r = await asAdmin.queryState({ sql: "SELECT user, role FROM users WHERE user = 'alice'" });
    expect(r.rows.map((row) => JSON.parse(row))).toEqual([['alice', 'user']]);
    await expect(asAlice.queryState({ sql: 'SELECT 1' })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(asAlice.processStatus()).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(asAlice.profileProcess('cpu', 100)).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(asAdmin.processStatus()).resolves.toMatchObject({ role: 'controller' });
    // The controller's own log keeps its warnings, the bootstrap admin's creation among them.
    expect((await asAdmin.processLogs()).map((l) => l.message)).toEqual(expect.arrayContaining([expect.stringContaining('created admin "root"')]));
    await expect(asAlice.processLogs()).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
  });

  it('asks a worker daemon about its process for an admin only, and the worker refuses a caller without the workers\' token', async () => {
    const adminKey = readFileSync(cluster.controller.bootstrapKeyFile!, 'utf8').trim();
    await using asAdmin = createClusterAdminClient({ address: cluster.address, token: adminKey });
    await using asAlice = createClusterAdminClient({ address: cluster.address, token: aliceKey });
    const workerId = cluster.workers[0]!.workerId;
    await expect(asAdmin.processStatus({ workerId })).resolves.toMatchObject({ role: 'worker', workerId });
    await expect(asAlice.processStatus({ workerId })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(asAlice.processLogs(0, { workerId })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(asAlice.profileProcess('heap', 0, { workerId })).rejects.toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    await expect(asAdmin.processStatus({ workerId: 'no-such-worker' })).rejects.toMatchObject({ code: 'IRIS_NOT_FOUND' });
    // The worker's own service: an admin's API key is not the workers' token.
    const direct = new WorkerServiceClient(cluster.workers[0]!.address, credentials.createInsecure(), { interceptors: [createAuthInterceptor(adminKey)] });
    try {
      const err = await new Promise<ServiceError | null>((resolve) => direct.getProcessStatus({ workerId: '' }, (e) => resolve(e)));
      expect(err && IrisError.from(err).code).toBe('IRIS_UNAUTHENTICATED');
    } finally {
      direct.close();
    }
  });
});

describe('per-user API keys: revocation', () => {
  it('refuses a revoked key on the very next request', async () => {
    await expect(alice.listJobs()).resolves.toBeDefined();
    const revoked = await alice.revokeApiKey(aliceKeyId);
    expect(revoked.revokedAtMs).not.toBeNull();
    await expect(alice.listJobs()).rejects.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
    await expect(alice.whoAmI()).rejects.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
    const audit = await admin.listAuditLog();
    expect(audit.find((e) => e.action === 'key.revoke')).toMatchObject({ actor: 'alice', target: aliceKeyId });
  });
});
