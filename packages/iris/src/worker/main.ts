/**
 * Runs one worker daemon as its own OS process:
 * `node --conditions=@marin/source --import tsx src/worker/main.ts '<WorkerOptions as JSON>'`
 * (or the JSON in `IRIS_WORKER_OPTIONS`). Prints one JSON line `{"event":"ready",…}` with the bound
 * address once serving, and stops every attempt before exiting on SIGTERM or SIGINT.
 */
import { startWorker } from './worker-daemon.js';

const raw = process.argv[2] ?? process.env['IRIS_WORKER_OPTIONS'];
if (raw === undefined || raw === '') {
  process.stderr.write('usage: main.ts <worker options as JSON>\n');
  process.exit(2);
}
let options: unknown;
try {
  options = JSON.parse(raw);
} catch {
  process.stderr.write('worker options are not valid JSON\n');
  process.exit(2);
}
try {
  const worker = await startWorker(options as Parameters<typeof startWorker>[0]);
  process.stdout.write(
    `${JSON.stringify({ event: 'ready', address: worker.address, workerId: worker.workerId, bootId: worker.bootId, pid: process.pid, killedLeftovers: worker.killedLeftovers })}\n`,
  );
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    void worker.close().then(() => {
      process.stdout.write(`${JSON.stringify({ event: 'stopped', signal })}\n`);
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} catch (e) {
  process.stderr.write(`${JSON.stringify({ event: 'error', code: (e as { code?: string }).code, message: (e as Error).message })}\n`);
  process.exit(1);
}
