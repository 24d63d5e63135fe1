// Child process: copies a tree with copyTree and prints the result as one JSON line.
// Usage: node --conditions=@marin/source --import tsx copy-tree-runner.ts <source> <destination> <concurrency>
import { copyTree } from '@marin/rigging';

const [source, destination, concurrency] = process.argv.slice(2);
if (source === undefined || destination === undefined) {
  process.stderr.write('usage: copy-tree-runner <source> <destination> [concurrency]\n');
  process.exit(2);
}
const result = await copyTree(source, destination, { concurrency: Number(concurrency ?? '8') });
process.stdout.write(`${JSON.stringify(result)}\n`);
