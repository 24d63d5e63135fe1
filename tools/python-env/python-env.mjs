#!/usr/bin/env node
// Usage: node tools/python-env/python-env.mjs <requirements lock> [--python 3.11] [--quiet]
// Builds the lock's environment once (uv, cached under $MARIN_PYTHON_ENV_CACHE or ~/.cache/marin/python-envs,
// keyed by the lock's hash) and prints its interpreter path on stdout. Progress goes to stderr.
// Runs @marin/rigging from source, so it works before anything is built.
import { spawnSync } from 'node:child_process';

if (!process.execArgv.some((a) => a.includes('@marin/source'))) {
  // Sibling packages resolve to their sources only under the @marin/source condition: re-run with it.
  const { status } = spawnSync(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(status ?? 1);
}
const { ensurePythonEnv } = await import('@marin/rigging');

const args = process.argv.slice(2);
const pyIdx = args.indexOf('--python');
const pythonVersion = pyIdx >= 0 ? args[pyIdx + 1] : undefined;
const quiet = args.includes('--quiet');
const lockPath = args.filter((a, i) => !a.startsWith('--') && (pyIdx < 0 || i !== pyIdx + 1))[0];
if (lockPath === undefined) {
  process.stderr.write('usage: python-env.mjs <requirements lock> [--python 3.11] [--quiet]\n');
  process.exit(2);
}
try {
  const started = Date.now();
  const env = await ensurePythonEnv({ lockPath, pythonVersion, log: quiet ? undefined : (l) => process.stderr.write(`${l}\n`) });
  if (!quiet) process.stderr.write(`${env.built ? 'built' : 'reused'} ${env.dir} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  process.stdout.write(`${env.python}\n`);
} catch (e) {
  process.stderr.write(`python-env: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
