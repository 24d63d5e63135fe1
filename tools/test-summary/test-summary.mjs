#!/usr/bin/env node
// Sums every Vitest JSON report (test-results*.json) under packages/, experiments/ and tools/ into the one
// closing line CI reads: "N passed, N failed[, N skipped]". A report that cannot be parsed counts as
// one failure, and the tests of a file whose set-up failed count as failed (`summarize.mjs`), so a crashed
// runner or a broken suite never reads as green.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { countReport } from './summarize.mjs';

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
      const counts = countReport(JSON.parse(readFileSync(file, 'utf8')));
      passed += counts.passed;
      failed += counts.failed;
      skipped += counts.skipped;
      console.log(`${file.slice(root.length + 1)}: ${counts.passed} passed, ${counts.failed} failed`);
    } catch (e) {
      failed += 1;
      console.log(`${file}: unreadable report (${e instanceof Error ? e.message : e})`);
    }
  }
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
