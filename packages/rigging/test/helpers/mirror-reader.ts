// Child process: reads one mirror:// file through a fresh MirrorFilesystem and reports what it copied.
// Usage: node --conditions=@marin/source --import tsx mirror-reader.ts <local-prefix> <remote-prefix> <rel> <start-epoch-ms>
import { TransferBudget, createMirrorFilesystem } from '@marin/rigging';

const [localPrefix, remotePrefix, rel, startAt] = process.argv.slice(2);
if (localPrefix === undefined || remotePrefix === undefined || rel === undefined || startAt === undefined) {
  process.stderr.write('usage: mirror-reader <local-prefix> <remote-prefix> <rel> <start-epoch-ms>\n');
  process.exit(2);
}
const mirror = createMirrorFilesystem({
  localPrefix,
  remotePrefixes: [remotePrefix],
  budget: new TransferBudget(1024 ** 3),
  lockWait: { attempts: 600, intervalMs: 100 },
  log: () => undefined,
});
while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 1));
const data = await mirror.readBytes(`mirror://${rel}`);
process.stdout.write(`${JSON.stringify({ bytes: data.length, bytesCopied: mirror.bytesCopied })}\n`);
