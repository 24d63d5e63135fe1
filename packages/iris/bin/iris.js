#!/usr/bin/env node
// The `iris` command. Plain node runs the built CLI: the bundled `dist/iris-cli.js` (from
// scripts/build-cli.mjs), which starts faster than the per-module `dist/cli/index.js` it falls back to.
// `node --conditions=@marin/source --import tsx bin/iris.js` runs the same CLI from source.
import { existsSync } from 'node:fs';

const entry = import.meta.resolve('@marin/iris/cli');
const bundle = new URL('../dist/iris-cli.js', import.meta.url);
const fromSource = entry.endsWith('.ts');
let cli;
try {
  cli = await import(!fromSource && existsSync(bundle) ? bundle.href : entry);
} catch (e) {
  if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('/dist/')) {
    console.error('iris: the CLI is not built yet; run `npx nx run @marin/iris:build` (or `npx nx run-many -t build`) first');
    process.exit(2);
  }
  throw e;
}
const code = await cli.main(process.argv.slice(2));
process.exitCode = code;
// Exit even if a library left a handle open after the command finished.
setTimeout(() => process.exit(code), 2000).unref();
