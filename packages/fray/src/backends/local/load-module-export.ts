import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FrayError } from '../../errors.js';
import { isPackageSpecifier } from '../../runner/module-runner.js';

/**
 * Imports a module entrypoint's module in this process and returns its export. Workspace paths resolve against
 * `workspace`; package specifiers from this package first, then from the workspace root.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT when the module cannot be loaded or lacks a function export `exportName`
 */
export async function loadModuleExport(workspace: string, module: string, exportName: string): Promise<(...args: unknown[]) => unknown> {
  let mod: Record<string, unknown>;
  try {
    if (!isPackageSpecifier(module)) {
      mod = (await import(pathToFileURL(resolve(workspace, module)).href)) as Record<string, unknown>;
    } else {
      try {
        mod = (await import(module)) as Record<string, unknown>;
      } catch (first) {
        let path: string;
        try {
          path = createRequire(resolve(workspace, 'package.json')).resolve(module);
        } catch {
          throw first;
        }
        mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
      }
    }
  } catch (cause) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `cannot load module "${module}"`, { cause, details: { module } });
  }
  const fn = mod[exportName];
  if (typeof fn !== 'function') {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `module "${module}" has no exported function "${exportName}"`, {
      details: { module, exportName },
    });
  }
  return fn as (...args: unknown[]) => unknown;
}
