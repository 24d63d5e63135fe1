import { describe, expect, it } from 'vitest';
import { ArtifactStep } from './artifact-step.js';
import { lowerArtifacts } from './lower.js';

function step(name: string, deps: ArtifactStep[] = [], opts: { overridePath?: string; async?: boolean } = {}): ArtifactStep {
  return new ArtifactStep({
    name,
    version: '2026.11.25',
    deps,
    overridePath: opts.overridePath ?? null,
    buildConfig: (ctx) => {
      const config = { inputs: deps.map((d) => ctx.artifactPath(d)) };
      return opts.async === true ? new Promise((resolve) => setTimeout(() => resolve(config), 5)) : config;
    },
    run: () => undefined,
  });
}

describe('lowerArtifacts()', () => {
  it('orders deps first, shares one node between handles at one output path, and maps roots and handles to nodes', async () => {
    const a = step('low/a');
    const a2 = step('low/a'); // another handle for the same name@version: the same node
    const pinned = step('low/pinned', [], { overridePath: 'low/a/2026.11.25' }); // pinned onto a's path
    const b = step('low/b', [a2, pinned]);
    const c = step('low/c', [a, b]);
    const { nodes, roots, byHandle } = await lowerArtifacts([c, a2, b], '/p');
    expect(nodes.map((n) => n.id)).toEqual(['low/a@2026.11.25', 'low/b@2026.11.25', 'low/c@2026.11.25']);
    expect(nodes.map((n) => n.index)).toEqual([0, 1, 2]);
    const [na, nb, nc] = nodes;
    expect(nb?.deps).toEqual([na]); // a2 and the pin are one dep node
    expect(nb?.depRefs).toEqual(['low/a@2026.11.25', 'low/pinned@2026.11.25']);
    expect(nc?.deps).toEqual([na, nb]);
    expect(na?.outputPath).toBe('/p/low/a/2026.11.25');
    expect(roots).toEqual([nc, na, nb]);
    expect([a, a2, pinned, b, c].map((h) => byHandle.get(h))).toEqual([na, na, na, nb, nc]);
  });

  it('gives each of two interleaved lowerings of shared handles its own order and nodes', async () => {
    const a = step('mix/a', [], { async: true });
    const b = step('mix/b', [a], { async: true });
    const c = step('mix/c', [b]);
    const d = step('mix/d', [a]);
    // Both walks mark the same handles; each reads its marks before its payloads are awaited.
    const [first, second] = await Promise.all([lowerArtifacts([c], '/one'), lowerArtifacts([d, c], '/two')]);
    expect(first.nodes.map((n) => n.id)).toEqual(['mix/a@2026.11.25', 'mix/b@2026.11.25', 'mix/c@2026.11.25']);
    expect(first.nodes.map((n) => n.deps.map((x) => x.id))).toEqual([[], ['mix/a@2026.11.25'], ['mix/b@2026.11.25']]);
    expect(second.nodes.map((n) => n.id)).toEqual(['mix/a@2026.11.25', 'mix/d@2026.11.25', 'mix/b@2026.11.25', 'mix/c@2026.11.25']);
    expect(second.nodes.map((n) => n.deps.map((x) => x.index))).toEqual([[], [0], [0], [2]]);
    expect(second.roots.map((n) => n.id)).toEqual(['mix/d@2026.11.25', 'mix/c@2026.11.25']);
    expect(second.nodes.every((n) => n.outputPath.startsWith('/two/'))).toBe(true);
  });
});
