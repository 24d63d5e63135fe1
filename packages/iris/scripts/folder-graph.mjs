#!/usr/bin/env node
// The import graph between the folders of iris's src/: the repository's folder-graph check
// (scripts/folder-graph.mjs at the root) for this package alone, with iris's layer order
// (layers.mjs). `node scripts/folder-graph.mjs --check` exits 1 on a folder pair importing each
// other or an import up the order; `-v` lists the imports of each arrow.
import { fileURLToPath } from 'node:url';
import { PACKAGE_LAYERS, packageFolderGraph, printFolderGraph } from '../../../scripts/folder-graph.mjs';

/** The layer order of src/, lowest first (the folders' order is the one lint enforces, layers.mjs). */
export const LAYERS = PACKAGE_LAYERS.iris;

/** The folder graph of iris's src/. */
export function folderGraph() {
  return packageFolderGraph('iris');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ok = printFolderGraph('iris', folderGraph(), process.argv.includes('-v'));
  if (process.argv.includes('--check') && !ok) process.exit(1);
}
