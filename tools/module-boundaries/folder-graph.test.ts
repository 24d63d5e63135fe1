import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const fixtures = join(here, 'fixtures', 'folder-graph');

interface FolderGraph {
  readonly pairs: [string, string][];
  readonly upward: [string, string[]][];
}

interface FolderGraphModule {
  folderGraph(src: string, layers?: readonly string[]): FolderGraph;
  packageFolderGraph(name: string): FolderGraph;
  repoPackages(): string[];
}

/** The repository's folder-graph check (`node scripts/folder-graph.mjs --check`). */
let graphs: FolderGraphModule;

beforeAll(async () => {
  graphs = (await import(pathToFileURL(join(root, 'scripts', 'folder-graph.mjs')).href)) as FolderGraphModule;
});

describe('folder graph', () => {
  it('reports two folders importing each other, and a file directly in src/ as a node of its own', () => {
    expect(graphs.folderGraph(join(fixtures, 'mutual', 'src')).pairs).toEqual(expect.arrayContaining([['fs', 'locks'], ['./errors', 'locks']]));
  });

  it('accepts imports that go one way', () => {
    expect(graphs.folderGraph(join(fixtures, 'one-way', 'src')).pairs).toEqual([]);
  });

  it('reports an import up a declared layer order', () => {
    const upward = graphs.folderGraph(join(fixtures, 'one-way', 'src'), ['locks', 'fs']).upward.map(([arrow]) => arrow);
    expect(upward).toEqual(['locks->fs']);
  });

  it("finds no folder pair importing each other in any of the repository's packages", () => {
    const packages = graphs.repoPackages();
    expect(packages).toEqual(expect.arrayContaining(['rigging', 'iris', 'fray', 'executor', 'pipeline']));
    const knots = packages.map((name) => [name, graphs.packageFolderGraph(name).pairs] as const).filter(([, pairs]) => pairs.length > 0);
    expect(knots).toEqual([]);
  });

  it("finds no import up iris's layer order", () => {
    expect(graphs.packageFolderGraph('iris').upward).toEqual([]);
  });
});
