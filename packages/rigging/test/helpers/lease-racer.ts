// Child process for lease races: waits until the shared start time, tries once, prints the outcome.
// Usage: node --conditions=@marin/source --import tsx lease-racer.ts <lease-url> <start-epoch-ms>
import { createLease, defaultWorkerId } from '@marin/rigging';

const [url, startAt] = process.argv.slice(2);
if (url === undefined || startAt === undefined) {
  process.stderr.write('usage: lease-racer <lease-url> <start-epoch-ms>\n');
  process.exit(2);
}
const lease = createLease(url, { workerId: defaultWorkerId() });
while (Date.now() < Number(startAt)) {
  await new Promise((r) => setTimeout(r, 1));
}
const won = await lease.tryAcquire();
process.stdout.write(`${JSON.stringify({ workerId: lease.workerId, won })}\n`);
