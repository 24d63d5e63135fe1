import { benchArtifacts } from './artifacts.bench.js';
import { benchRemote } from './remote.bench.js';
import { benchRunLoop } from './run-loop.bench.js';
import { benchVersioning } from './versioning.bench.js';

/** Every bench, by the name `npm run bench -- <name>…` selects it with (none named: all of them, in this order). */
const BENCHES: Record<string, () => void | Promise<void>> = {
  versioning: benchVersioning,
  'run-loop': benchRunLoop,
  remote: benchRemote,
  artifacts: benchArtifacts,
};

const named = process.argv.slice(2);
const unknown = named.filter((n) => !Object.hasOwn(BENCHES, n));
if (unknown.length > 0) {
  console.error(`unknown bench ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
for (const [name, bench] of Object.entries(BENCHES)) if (named.length === 0 || named.includes(name)) await bench();
