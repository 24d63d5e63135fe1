/**
 * A program that uses an embedded cluster the way the cluster bench does: starts it, runs jobs (some
 * still running, some just launched), closes it and returns from main without `process.exit`.
 * `node --conditions=@marin/source --import tsx local-cluster-program.ts <marker> <close-after-ms>`.
 */
import { startLocalCluster } from '../../src/cluster/local-cluster.js';

const [marker = 'marker', closeAfter = '0'] = process.argv.slice(2);
const cluster = await startLocalCluster({ workers: 2, cpuMillicores: 2000, memoryBytes: 2 ** 31, termTimeoutMs: 2000 });
const client = cluster.client();
const quick = await client.launchJob({ name: '/bench/quick', command: ['node', '-e', '0', marker] });
await client.waitForJob(quick, { timeoutMs: 60_000 });
for (let i = 0; i < 3; i++) await client.launchJob({ name: `/bench/long-${i}`, command: ['node', '-e', 'setInterval(() => {}, 1000)', marker] });
await new Promise((resolve) => setTimeout(resolve, Number(closeAfter)));
await client.close();
await cluster.close();
process.stdout.write('closed\n');
