// Figures for docs/benchmarks.md: local copyTree vs `cp -r`, and mirror copies from fake-gcs-server.
// Run: npm run bench (from packages/rigging). Prints figures; asserts nothing.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TransferBudget, copyTree, createMirrorFilesystem, filesystemFor } from '@marin/rigging';
import { startFakeGcs } from '@marin/rigging/testing';

const run = promisify(execFile);
const MiB = 1024 * 1024;

async function writeRandomFile(path: string, bytes: number): Promise<void> {
  const fh = await open(path, 'w');
  try {
    const chunk = Buffer.alloc(8 * MiB);
    for (let off = 0; off < bytes; off += chunk.length) {
      for (let i = 0; i < chunk.length; i += 4096) chunk.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, i);
      await fh.write(chunk, 0, Math.min(chunk.length, bytes - off));
    }
  } finally {
    await fh.close();
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = process.hrtime.bigint();
  const r = await fn();
  return [r, Number(process.hrtime.bigint() - t) / 1e9];
}

async function benchCopyTree(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'rigging-bench-'));
  try {
    const src = join(dir, 'src');
    await mkdir(src);
    const files = 64;
    const size = 16 * MiB; // 64 × 16 MiB = 1 GiB
    for (let i = 0; i < files; i++) await writeRandomFile(join(src, `shard-${String(i).padStart(3, '0')}.bin`), size);
    const total = files * size;
    // Each timing includes a final `sync`, so both sides pay for their writes reaching the disk; each
    // side runs three times, alternating, and the fastest run counts (the machine is shared).
    await run('sync');
    const cpRuns: number[] = [];
    const treeRuns: number[] = [];
    let copied = 0;
    const cpOnce = async (round: number) => {
      const [, cp] = await timed(async () => {
        await run('cp', ['-r', src, join(dir, `cp-dst-${round}`)]);
        await run('sync');
      });
      cpRuns.push(cp);
      await rm(join(dir, `cp-dst-${round}`), { recursive: true, force: true });
    };
    const treeOnce = async (round: number) => {
      const [res, tree] = await timed(async () => {
        const r = await copyTree(src, join(dir, `tree-dst-${round}`), { mode: 'overwrite' });
        await run('sync');
        return r;
      });
      copied = res.copiedFiles;
      treeRuns.push(tree);
      if (round < 2) await rm(join(dir, `tree-dst-${round}`), { recursive: true, force: true });
    };
    // Alternate which side goes first, so neither always pays for the other's writeback.
    for (let round = 0; round < 3; round++) {
      if (round % 2 === 0) {
        await cpOnce(round);
        await treeOnce(round);
      } else {
        await treeOnce(round);
        await cpOnce(round);
      }
      await run('sync');
    }
    const cpS = Math.min(...cpRuns);
    const treeS = Math.min(...treeRuns);
    const result = { copiedFiles: copied };
    const [resume, resumeS] = await timed(() => copyTree(src, join(dir, 'tree-dst-2'), { mode: 'resume' }));
    console.log(`copyTree local→local, ${files} files, ${(total / MiB).toFixed(0)} MiB:`);
    console.log(`  cp -r:     ${cpS.toFixed(2)} s  (${(total / MiB / cpS).toFixed(0)} MiB/s)`);
    console.log(`  copyTree:  ${treeS.toFixed(2)} s  (${(total / MiB / treeS).toFixed(0)} MiB/s), copied ${result.copiedFiles} files`);
    console.log(`  ratio:     ${(cpS / treeS).toFixed(2)}x cp speed (target >= 0.8x)`);
    console.log(`  resume re-run (all skipped: ${resume.skippedFiles}): ${(resumeS * 1000).toFixed(0)} ms`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function benchMirror(): Promise<void> {
  await using gcs = await startFakeGcs();
  process.env['STORAGE_EMULATOR_HOST'] = gcs.endpoint;
  await gcs.createBucket('marin-us-east1');
  const files = 100;
  const body = Buffer.alloc(MiB, 7);
  const remote = 'gs://marin-us-east1/bench';
  const fs = filesystemFor(remote);
  for (let i = 0; i < files; i++) await fs.writeBytes(`${remote}/f${i}.bin`, body);
  const dir = await mkdtemp(join(tmpdir(), 'rigging-bench-mirror-'));
  try {
    for (const concurrency of [1, 8]) {
      const mirror = createMirrorFilesystem({
        localPrefix: join(dir, `c${concurrency}`),
        remotePrefixes: [remote],
        budget: new TransferBudget(10 * 1024 ** 3),
        log: () => undefined,
      });
      const [, s] = await timed(async () => {
        let next = 0;
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next < files) await mirror.readBytes(`mirror://f${next++}.bin`);
          }),
        );
      });
      console.log(
        `mirror copy from emulator, ${files} × 1 MiB, concurrency ${concurrency}: ${s.toFixed(2)} s (${(mirror.bytesCopied / MiB / s).toFixed(1)} MiB/s)`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

console.log(`nproc: ${cpus().length}, node ${process.version}`);
await benchCopyTree();
await benchMirror();
