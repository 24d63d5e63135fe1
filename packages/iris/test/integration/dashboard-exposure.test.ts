import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startController } from '../../src/cluster/start-controller.js';
import { spawnIris } from '../helpers/cli-process.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'iris-exposure-'));
  dirs.push(d);
  return d;
}

/** A GET with an explicit `Host` header, as a browser on a rebound name would send it. */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a cluster is not exposed by accident', () => {
  it('`iris controller serve` on all interfaces without a token refuses to start, in one line', async () => {
    for (const args of [
      ['--bind', '0.0.0.0:0'],
      ['--bind', '127.0.0.1:0', '--dashboard-bind', '0.0.0.0:0'],
    ]) {
      await using serve = spawnIris(['controller', 'serve', ...args, '--state-dir', tempDir()], { env: { IRIS_AUTH_TOKEN: '' } });
      expect(await serve.exited).toBe(1);
      const lines = serve.stderr().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('0.0.0.0:0');
      expect(lines[0]).toContain('--insecure');
    }
  }, 60_000);

  it('prints where the controller and its dashboard really listen', async () => {
    await using serve = spawnIris(['controller', 'serve', '--bind', '127.0.0.1:0', '--dashboard-bind', '127.0.0.1:0', '--state-dir', tempDir()], { env: { IRIS_AUTH_TOKEN: '' } });
    await serve.waitForOutput(/iris dashboard at .*\n/);
    expect(serve.stdout()).toMatch(/^iris controller at 127\.0\.0\.1:\d+ \(listening on 127\.0\.0\.1:[1-9]\d*\)$/m);
    expect(serve.stdout()).toMatch(/^iris dashboard at http:\/\/127\.0\.0\.1:\d+\/ \(listening on 127\.0\.0\.1:[1-9]\d*\)$/m);
  }, 60_000);

  it('answers a token-less dashboard request only for its own host names, so DNS rebinding cannot reach it', async () => {
    await using controller = await startController({ dashboardHosts: ['iris.internal'] });
    const url = `${controller.dashboardUrl}api/overview`;
    const port = new URL(url).port;
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`]) {
      const r = await getWithHost(url, host);
      expect(r.status, host).toBe(400);
      expect(JSON.parse(r.body)).toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    }
    expect((await getWithHost(`${controller.dashboardUrl}`, 'evil.example')).status).toBe(400);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', `iris.internal:${port}`]) {
      expect((await getWithHost(url, host)).status, host).toBe(200);
    }
  });
});
