// Runs every pipeline benchmark, one after another so they do not compete for the cores, each in its own
// process (some start servers or Python): `npx nx run @marin/pipeline:bench`. The last, curation-scale.ts, runs
// 2 GB through the curation stages on a local Iris cluster twice (tens of minutes; see the package README).
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';

const BENCHES = ['download.ts', 'transform.ts', 'parquet-read.ts', 'xxh3.ts', 'normalize.ts', 'cache-write.ts', 'tokenize-throughput.ts', 'tokenize-step.ts', 'levanter-launch.ts', 'served-eval.ts', 'curation.ts', 'quality-pool.ts', 'curation-scale.ts'];

console.log(`@marin/pipeline benchmarks on ${cpus().length} cores, Node ${process.version}`);
let failed = 0;
for (const file of BENCHES) {
  console.log(`\n== ${file}`);
  const { status } = spawnSync(process.execPath, [...process.execArgv, join(import.meta.dirname, file)], { stdio: 'inherit' });
  if (status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
