// Child process of the python-env race test: waits for a common start instant, then calls
// ensurePythonEnv and prints one JSON line with the result and the progress it logged.
import { ensurePythonEnv } from '@marin/rigging';

const [lockPath, cacheDir, startAt] = process.argv.slice(2) as [string, string, string];
const lines: string[] = [];
await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
const env = await ensurePythonEnv({ lockPath, cacheDir, pythonVersion: '3.11', pollMs: 100, log: (l) => lines.push(l) });
process.stdout.write(`${JSON.stringify({ ...env, lines })}\n`);
