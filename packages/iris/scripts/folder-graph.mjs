#!/usr/bin/env node
// The import graph between the folders of src/ (a file directly in src/ counts as its own folder:
// `./errors` at the bottom, the entry barrels `./core` and `./index` at the top):
// prints the folder pairs that import each other and, given the layer order (LAYERS below, lowest
// first), the imports that point up it. `node scripts/folder-graph.mjs --check` exits 1 on either.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IRIS_LAYERS } from './layers.mjs';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/**
 * The layer order of src/, lowest first: a folder imports only folders before it (or its own). The
 * folders' order is the one lint enforces (IRIS_LAYERS, layers.mjs).
 */
export const LAYERS = ['gen', './errors', ...IRIS_LAYERS, './core', './index'];

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) yield path;
  }
}

function folderOf(file) {
  const rel = relative(src, file).split('/');
  if (rel.length === 1) return `./${rel[0].replace(/\.(tsx?|js)$/, '')}`;
  // A layered sub-folder (controller/store, controller/services) counts as a folder of its own.
  return rel.length > 2 && LAYERS.includes(`${rel[0]}/${rel[1]}`) ? `${rel[0]}/${rel[1]}` : rel[0];
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

export function folderGraph() {
  /** `${from}->${to}` → [importing file, imported file] examples */
  const edges = new Map();
  for (const file of sourceFiles(src)) {
    const from = folderOf(file);
    if (from === 'gen') continue;
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(file), m[1] ?? m[2]);
      if (!target.startsWith(src)) continue;
      const to = folderOf(target);
      if (to === from) continue;
      const key = `${from}->${to}`;
      if (!edges.has(key)) edges.set(key, []);
      const line = `${relative(src, file)} → ${relative(src, target)}`;
      if (!edges.get(key).includes(line)) edges.get(key).push(line);
    }
  }
  const pairs = [];
  for (const key of edges.keys()) {
    const [a, b] = key.split('->');
    if (a < b && edges.has(`${b}->${a}`)) pairs.push([a, b]);
  }
  const rank = (f) => (LAYERS.includes(f) ? LAYERS.indexOf(f) : -1);
  const upward = [...edges.entries()].filter(([key]) => {
    const [a, b] = key.split('->');
    return rank(a) === -1 || rank(b) === -1 || rank(b) > rank(a);
  });
  const folders = new Set([...edges.keys()].flatMap((k) => k.split('->')));
  return { edges, pairs, upward, folders };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { edges, pairs, upward, folders } = folderGraph();
  const imports = [...edges.values()].reduce((n, list) => n + list.length, 0);
  console.log(`${folders.size} folders, ${edges.size} folder arrows (${imports} imports)`);
  console.log(`${pairs.length} folder pairs importing each other${pairs.length ? ':' : ''}`);
  for (const [a, b] of pairs) console.log(`  ${a} ⇄ ${b}  (${edges.get(`${a}->${b}`).length} / ${edges.get(`${b}->${a}`).length} imports)`);
  const upImports = upward.reduce((n, [, list]) => n + list.length, 0);
  console.log(`${upward.length} folder arrows against the order (${upImports} imports)${upward.length ? ':' : ''}`);
  for (const [key, list] of upward) console.log(`  ${key}: ${list.length}${process.argv.includes('-v') ? `\n    ${list.join('\n    ')}` : ''}`);
  if (process.argv.includes('--check') && (pairs.length > 0 || upward.length > 0)) process.exit(1);
}
