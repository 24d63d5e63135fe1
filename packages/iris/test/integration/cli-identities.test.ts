import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIrisClient } from '../../src/client/iris-client.js';
import { runIris, spawnIris } from '../helpers/cli-process.js';
import type { CliProcess } from '../helpers/cli-process.js';

const WORKER_TOKEN = 'cli-identities-worker-secret';

let root: string;
let serve: CliProcess;
let address: string;
let bootstrapKey: string;
const outputs: string[] = [];
const adminHome = () => join(root, 'admin-home');
const aliceHome = () => join(root, 'alice-home');

/** Runs the real CLI against the controller and keeps everything it printed for the leak check. */
async function iris(home: string, args: string[], input?: string) {
  const r = await runIris([...args, '--controller', address], { env: { IRIS_HOME: home, IRIS_AUTH_TOKEN: '' }, ...(input === undefined ? {} : { input }) });
  outputs.push(r.stdout, r.stderr);
  return r;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'iris-cli-identities-'));
  serve = spawnIris(['controller', 'serve', '--auth', 'api-keys', '--bootstrap-admin', 'root', '--state-dir', join(root, 'state'), '--bind', '127.0.0.1:0', '--dashboard-bind', '127.0.0.1:0'], {
    env: { IRIS_HOME: join(root, 'serve-home'), IRIS_AUTH_TOKEN: WORKER_TOKEN },
  });
  await serve.waitForOutput(/iris controller at \S+:\d+/);
  address = /iris controller at (\S+)/.exec(serve.stdout())![1]!;
  bootstrapKey = readFileSync(join(root, 'state', 'bootstrap-admin.key'), 'utf8').trim();
});
afterAll(async () => {
  await serve?.[Symbol.asyncDispose]();
  rmSync(root, { recursive: true, force: true });
});

describe('iris login, key, audit (real CLI, real controller)', { timeout: 120_000 }, () => {
  let aliceKey = '';
  let aliceKeyId = '';

  it('logs the admin in from the bootstrap key file and stores it 0600 in a 0700 IRIS_HOME', async () => {
    const r = await iris(adminHome(), ['login', '--key-file', join(root, 'state', 'bootstrap-admin.key')]);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(join(adminHome(), 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(statSync(adminHome()).mode & 0o777).toBe(0o700);
    const me = await iris(adminHome(), ['whoami', '--json']);
    expect(JSON.parse(me.stdout)).toMatchObject({ user: 'root', role: 'admin' });
  });

  it('creates a key for a new user, printed once on stdout, which the user logs in with from stdin', async () => {
    const created = await runIris(['key', 'create', '--user', 'alice', '--name', 'laptop', '--controller', address], { env: { IRIS_HOME: adminHome(), IRIS_AUTH_TOKEN: '' } });
    outputs.push(created.stderr); // stdout is the one place the key is meant to appear
    expect(created.code, created.stderr).toBe(0);
    aliceKey = created.stdout.trim();
    expect(aliceKey).toMatch(/^iris-key-[0-9a-f]{16}\./);
    const login = await iris(aliceHome(), ['login'], `${aliceKey}\n`);
    expect(login.code, login.stderr).toBe(0);
    const me = JSON.parse((await iris(aliceHome(), ['whoami', '--json'])).stdout) as { user: string; role: string; keyId: string };
    expect(me).toMatchObject({ user: 'alice', role: 'user' });
    aliceKeyId = me.keyId;
    // The dashboard link never carries the key: the browser logs in on the page.
    const dashboard = await iris(aliceHome(), ['cluster', 'dashboard', '--no-open']);
    expect(dashboard.code, dashboard.stderr).toBe(0);
    expect(dashboard.stdout.trim()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login$/);
    const list = await iris(aliceHome(), ['key', 'list', '--json']);
    expect((JSON.parse(list.stdout) as { user: string }[]).map((k) => k.user)).toEqual(['alice']);
  });

  it('refuses a user who stops another user\u2019s job or raises their own band, with exit code 1 and one line', async () => {
    await using bob = createIrisClient({ address, token: JSON.parse((await iris(adminHome(), ['key', 'create', '--user', 'bob', '--json'])).stdout).key as string });
    const bobsJob = await bob.launchJob({ name: 'waiting', command: ['true'] });
    const stop = await iris(aliceHome(), ['job', 'stop', bobsJob]);
    expect(stop.code).toBe(1);
    expect(stop.stderr.trim().split('\n')).toHaveLength(1);
    expect((await bob.getJob(bobsJob)).state).toBe('PENDING');
    const raise = await iris(aliceHome(), ['user', 'budget', 'set', 'alice', '--max-band', 'production']);
    expect(raise.code).toBe(1);
    expect((await bob.getUserBudget('alice')).maxBand).toBe('BATCH');
    expect((await iris(aliceHome(), ['audit', 'list'])).code).toBe(1);
    const adminStop = await iris(adminHome(), ['job', 'stop', bobsJob]);
    expect(adminStop.code, adminStop.stderr).toBe(0);
    expect((await bob.getJob(bobsJob)).state).toBe('KILLED');
    const audit = JSON.parse((await iris(adminHome(), ['audit', 'list', '--json'])).stdout) as { action: string; target: string }[];
    expect(audit.map((e) => `${e.action} ${e.target}`)).toEqual(expect.arrayContaining([`job.stop ${bobsJob}`, 'user.create alice', `key.create ${aliceKeyId}`]));
  });

  it('refuses a revoked key on the next command', async () => {
    expect((await iris(aliceHome(), ['whoami'])).code).toBe(0);
    const revoke = await iris(adminHome(), ['key', 'revoke', aliceKeyId]);
    expect(revoke.code, revoke.stderr).toBe(0);
    const after = await iris(aliceHome(), ['whoami']);
    expect(after.code).toBe(1);
    const listed = JSON.parse((await iris(adminHome(), ['key', 'list', '--all', '--json'])).stdout) as { keyId: string; revokedAtMs: number | null }[];
    expect(listed.find((k) => k.keyId === aliceKeyId)?.revokedAtMs).not.toBeNull();
  });

  it('never prints a key in the controller\u2019s or the CLI\u2019s output', () => {
    const everything = [serve.stdout(), serve.stderr(), ...outputs].join('\n');
    expect(everything.length).toBeGreaterThan(0);
    for (const key of [bootstrapKey, aliceKey]) {
      expect(key.length).toBeGreaterThan(40);
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.split('.')[1]!);
    }
  });
});
