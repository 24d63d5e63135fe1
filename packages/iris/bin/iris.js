#!/usr/bin/env node
// The `iris` command. It runs the built CLI (dist/); from a source checkout, build it first with
// `npx nx run @marin/iris:build` (the README's setup command does).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/index.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('iris: the CLI is not built yet; run `npx nx run @marin/iris:build` (or `npx nx run-many -t build`) first');
  process.exit(2);
}
const { main } = await import(entry.href);
const code = await main(process.argv.slice(2));
process.exitCode = code;
// Lingering sockets must not keep a finished command alive; unref'd, so a clean exit is not delayed.
setTimeout(() => process.exit(code), 2000).unref();
