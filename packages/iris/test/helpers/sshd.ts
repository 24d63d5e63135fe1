import { spawn, execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The line `.ci/run` uses to install the SSH server these tests need. */
export const SSHD_INSTALL = 'command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || (apt-get update && apt-get install -y openssh-server)';

/** A private `sshd` on 127.0.0.1 that accepts one generated user key. */
export interface TestSshd extends AsyncDisposable {
  readonly port: number;
  /** Private key that logs in. */
  readonly keyFile: string;
  /** `ssh` arguments that skip host key checks (the host key is generated per test). */
  readonly sshOptions: readonly string[];
  close(): Promise<void>;
}

function sshdPath(): string {
  for (const p of ['/usr/sbin/sshd', '/usr/bin/sshd']) if (existsSync(p)) return p;
  try {
    return execFileSync('sh', ['-c', 'command -v sshd'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`sshd is not installed; install it with: ${SSHD_INSTALL}`);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/**
 * Starts `sshd -D -e` as this test's own child with a generated host key, a generated user key in
 * `AuthorizedKeysFile` and `StrictModes no`, listening on a free port of 127.0.0.1.
 * @throws Error naming the install command when sshd is missing.
 */
export async function startTestSshd(): Promise<TestSshd> {
  const sshd = sshdPath();
  const dir = mkdtempSync(join(tmpdir(), 'iris-sshd-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'user_key')]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'user_key.pub')));
  // sshd running as root insists on its privilege separation directory (the system service creates it).
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    writeFileSync(
      join(dir, 'sshd_config'),
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(dir, 'host_key')}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        'StrictModes no',
        'PermitRootLogin prohibit-password',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        '',
      ].join('\n'),
    );
    const child: ChildProcess = spawn(sshd, ['-f', join(dir, 'sshd_config'), '-D', '-e'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const listening = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      const check = setInterval(() => {
        if (log.includes('Server listening')) done(true);
      }, 20);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        clearInterval(check);
        resolve(ok);
      };
      child.once('exit', () => done(false));
    });
    if (!listening) {
      child.kill('SIGKILL');
      if (attempt < 2 && /Address already in use|Bind to port/.test(log)) continue;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`sshd did not start: ${log}`);
    }
    const close = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    };
    return {
      port,
      keyFile: join(dir, 'user_key'),
      sshOptions: ['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
      close,
      [Symbol.asyncDispose]: close,
    };
  }
}
