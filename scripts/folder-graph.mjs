#!/usr/bin/env node
// The import graph between the folders of each package's src/ (a file directly in src/ counts as its
// own folder, `./errors`, `./index`): prints, per package, the folder pairs that import each other and,
// for a package with a declared layer order (iris: packages/iris/scripts/layers.mjs), the imports that
// point up it. `node scripts/folder-graph.mjs --check` exits 1 when any package has either.
//   node scripts/folder-graph.mjs [--check] [-v] [package ...]   (default: every package under packages/)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IRIS_LAYERS } from '../packages/iris/scripts/layers.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Layer orders of src/, lowest first, for the packages that declare one (the files directly in src/ included). */
export const PACKAGE_LAYERS = {
  iris: ['gen', './errors', ...IRIS_LAYERS, './core', './index'],
};

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(tsx?|mts)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) yield path;
  }
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/**
 * The folder graph of one `src/` directory.
 *
 * @param {string} src - the directory whose folders are the nodes
 * @param {readonly string[]} [layers] - the layer order, lowest first; a layered sub-folder
 *   (`controller/store`) is a node of its own. Without it only mutual pairs are reported.
 * @returns {{ edges: Map<string, string[]>, pairs: [string, string][], upward: [string, string[]][], folders: Set<string> }}
 */
export function folderGraph(src, layers = []) {
  const folderOf = (file) => {
    const rel = relative(src, file).split('/');
    if (rel.length === 1) return `./${rel[0].replace(/\.(tsx?|mts|js)$/, '')}`;
    return rel.length > 2 && layers.includes(`${rel[0]}/${rel[1]}`) ? `${rel[0]}/${rel[1]}` : rel[0];
  };
  /** `${from}->${to}` → ["importing file → imported file", ...] */
  const edges = new Map();
  for (const file of sourceFiles(src)) {
    const from = folderOf(file);
    if (from === 'gen') continue;
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(file), m[1] ?? m[2]);
      if (!target.startsWith(`${src}/`)) continue;
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
  const rank = (f) => layers.indexOf(f);
  const upward =
    layers.length === 0
      ? []
      : [...edges.entries()].filter(([key]) => {
          const [a, b] = key.split('->');
          return rank(a) === -1 || rank(b) === -1 || rank(b) > rank(a);
        });
  const folders = new Set([...edges.keys()].flatMap((k) => k.split('->')));
  return { edges, pairs, upward, folders };
}

/** The packages under `packages/` that have a `src/`. */
export function repoPackages() {
  return readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(root, 'packages', e.name, 'src')))
    .map((e) => e.name)
    .sort();
}

/** The graph of package `name` (its `src/`, with its layer order when it declares one). */
export function packageFolderGraph(name) {
  return folderGraph(join(root, 'packages', name, 'src'), PACKAGE_LAYERS[name]);
}

/** Prints one package's graph; returns whether it passes the check (no pairs, nothing up the order). */
export function printFolderGraph(name, graph, verbose) {
  const { edges, pairs, upward, folders } = graph;
  const imports = [...edges.values()].reduce((n, list) => n + list.length, 0);
  console.log(`${name}: ${folders.size} folders, ${edges.size} folder arrows (${imports} imports)`);
  console.log(`  ${pairs.length} folder pairs importing each other${pairs.length ? ':' : ''}`);
  for (const [a, b] of pairs) {
    console.log(`    ${a} ⇄ ${b}  (${edges.get(`${a}->${b}`).length} / ${edges.get(`${b}->${a}`).length} imports)`);
    if (verbose) console.log(`      ${[...edges.get(`${a}->${b}`), ...edges.get(`${b}->${a}`)].join('\n      ')}`);
  }
  if (PACKAGE_LAYERS[name] !== undefined) {
    const upImports = upward.reduce((n, [, list]) => n + list.length, 0);
    console.log(`  ${upward.length} folder arrows against the layer order (${upImports} imports)${upward.length ? ':' : ''}`);
    for (const [key, list] of upward) console.log(`    ${key}: ${list.length}${verbose ? `\n      ${list.join('\n      ')}` : ''}`);
  }
  return pairs.length === 0 && upward.length === 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const names = args.filter((a) => !a.startsWith('-'));
  let ok = true;
  for (const name of names.length > 0 ? names : repoPackages()) {
    ok = printFolderGraph(name, packageFolderGraph(name), args.includes('-v')) && ok;
  }
  if (args.includes('--check') && !ok) process.exit(1);
}
