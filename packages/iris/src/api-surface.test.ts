import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface ExportsEntry {
  readonly '@marin/source'?: string;
}

/** Every entry point of the exports map with its source file (`.` → `src/index.ts`). */
function entryPoints(): [string, string][] {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { exports: Record<string, string | ExportsEntry> };
  return Object.entries(manifest.exports).flatMap(([key, target]): [string, string][] => {
    const source = typeof target === 'string' ? undefined : target['@marin/source'];
    return source === undefined ? [] : [[key, join(packageDir, source)]];
  });
}

/**
 * The sorted exported names of each entry point, a type-only export marked `(type)`: what a user of
 * `@marin/iris` can import. Moving a file inside `src/` must leave this unchanged.
 */
function exportedNames(): Record<string, string[]> {
  const entries = entryPoints();
  const config = ts.getParsedCommandLineOfConfigFile(join(packageDir, 'tsconfig.build.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (config === undefined) throw new Error('tsconfig.build.json could not be read');
  const program = ts.createProgram(entries.map(([, file]) => file), { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const surface: Record<string, string[]> = {};
  for (const [key, file] of entries) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (moduleSymbol === undefined) throw new Error(`entry point ${key} (${file}) has no module symbol`);
    surface[key] = checker
      .getExportsOfModule(moduleSymbol)
      .map((symbol) => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        return target.flags & ts.SymbolFlags.Value ? symbol.name : `${symbol.name} (type)`;
      })
      .sort();
  }
  return surface;
}

describe('public API', () => {
  it('exports the same names from every entry point as the committed snapshot (update with `vitest -u` when the API changes on purpose)', async () => {
    await expect(`${JSON.stringify(exportedNames(), null, 2)}\n`).toMatchFileSnapshot('./__snapshots__/api-surface.json');
  }, 120_000);
});
