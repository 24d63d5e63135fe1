/**
 * Download throughput (MiB/s): the download step against the local hub stand-in, next to `curl`
 * fetching the same files from the same server (8 transfers at once, as `max_parallelism`), both
 * writing to a temp directory on the same disk. The server runs in a child process (this script
 * re-entered with `--serve <root>`), so neither client shares its event loop. Files: 64 × 4 MiB of random bytes by default
 * (DOWNLOAD_BENCH_FILES, DOWNLOAD_BENCH_FILE_MIB, DOWNLOAD_BENCH_ROUNDS override). Prints figures;
 * asserts nothing.
 *
 * Run: node --conditions=@marin/source --import tsx packages/pipeline/bench/download.ts
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { download } from '../src/steps/download/download.js';
import { startHubServer } from '../src/testing/hub-server.js';

const FILES = Number(process.env['DOWNLOAD_BENCH_FILES'] ?? '64');
const FILE_MIB = Number(process.env['DOWNLOAD_BENCH_FILE_MIB'] ?? '4');
const ROUNDS = Number(process.env['DOWNLOAD_BENCH_ROUNDS'] ?? '2');
const PARALLELISM = 8;
const REPO = 'bench/blobs';
const REVISION = '0000000';

if (process.argv[2] === '--serve') {
  const hub = await startHubServer({ root: process.argv[3] ?? '.' });
  process.stdout.write(`${hub.url}\n`);
  process.once('SIGTERM', () => void hub.close().then(() => process.exit(0)));
} else {
  await main();
}

function runCurl(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`curl exited with ${code}: ${stderr}`))));
  });
}

/** Starts the hub server in a child process; resolves with its URL and a stop function. */
async function serveInChild(root: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1] ?? '', '--serve', root], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`hub server exited with ${code}`)));
  });
  const stop = () => new Promise<void>((resolve) => child.once('exit', () => resolve()).kill('SIGTERM'));
  return { url, stop };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'pipeline-download-bench-'));
  let hub: { url: string; stop: () => Promise<void> } | null = null;
  try {
    const names = Array.from({ length: FILES }, (_, i) => `data/part-${String(i).padStart(5, '0')}.bin`);
    await mkdir(join(dir, 'hub', REPO, REVISION, 'data'), { recursive: true });
    for (const name of names) await writeFile(join(dir, 'hub', REPO, REVISION, name), randomBytes(FILE_MIB * 1024 * 1024));
    const totalMib = FILES * FILE_MIB;

    hub = await serveInChild(join(dir, 'hub'));
    const hubUrl = hub.url;
    const ctx = (out: string) => ({ name: 'bench', outputPath: out, signal: new AbortController().signal });
    const results: Record<'download' | 'curl', number[]> = { download: [], curl: [] };

    for (let round = 0; round < ROUNDS; round++) {
      const curlOut = join(dir, `curl-${round}`);
      await mkdir(curlOut);
      const args = ['--silent', '--show-error', '--no-progress-meter', '--fail', '--parallel', '--parallel-max', String(PARALLELISM)];
      for (const [i, name] of names.entries()) args.push('-o', join(curlOut, `${i}.bin`), `${hubUrl}/datasets/${REPO}/resolve/${REVISION}/${name}`);
      let t0 = performance.now();
      await runCurl(args);
      results.curl.push(totalMib / ((performance.now() - t0) / 1000));
      await rm(curlOut, { recursive: true });

      const stepOut = join(dir, `step-${round}`);
      t0 = performance.now();
      await download({ hf_dataset_id: REPO, revision: REVISION, hub_url: hubUrl, max_parallelism: PARALLELISM }, ctx(stepOut), { env: {} });
      results.download.push(totalMib / ((performance.now() - t0) / 1000));
      await rm(stepOut, { recursive: true });
    }

    const fmt = (xs: number[]): string => `best ${Math.max(...xs).toFixed(0)} MiB/s (rounds: ${xs.map((x) => x.toFixed(0)).join(', ')})`;
    console.log(`download bench: ${FILES} files × ${FILE_MIB} MiB = ${totalMib} MiB from the local hub server, ${PARALLELISM} at once, nproc=${cpus().length}, node ${process.version}`);
    console.log(`  download step  ${fmt(results.download)}  (listing, temp + rename, metrics parts and provenance included)`);
    console.log(`  curl --parallel ${fmt(results.curl)}`);
  } finally {
    await hub?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
