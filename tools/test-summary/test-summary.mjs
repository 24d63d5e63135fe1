#!/usr/bin/env node
// Sums every Vitest JSON report (test-results*.json) under packages/, experiments/ and tools/ into the one
// closing line CI reads: "N passed, N failed[, N skipped]". A report that cannot be parsed counts as
// one failure, so a crashed runner never reads as green.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = process.argv[2] ?? process.cwd();
const roots = ['packages', 'experiments', 'tools'].map((d) => join(root, d));

function* reports(dir, depth = 0) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (/^test-results(-[\w-]+)?\.json$/.test(name)) yield path;
    else if (depth < 1 && statSync(path).isDirectory()) yield* reports(path, depth + 1);
  }
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const dir of roots) {
  for (const file of reports(dir)) {
    try {
      const r = JSON.parse(readFileSync(file, 'utf8'));
      passed += r.numPassedTests ?? 0;
      failed += (r.numFailedTests ?? 0) + (r.numRuntimeErrorTestSuites ?? 0);
      skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
      console.log(`${file.slice(root.length + 1)}: ${r.numPassedTests ?? 0} passed, ${r.numFailedTests ?? 0} failed`);
    } catch (e) {
      failed += 1;
      console.log(`${file}: unreadable report (${e instanceof Error ? e.message : e})`);
    }
  }
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
