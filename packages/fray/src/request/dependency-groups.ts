import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { FrayError } from '../errors.js';
import type { DeviceSpec } from '../resources/resource-config.js';

/** Named npm package lists declared in the workspace root `package.json` under `marin.dependencyGroups`. */
export type DeclaredDependencyGroups = Readonly<Record<string, readonly string[]>>;

const PackageJsonSchema = z.looseObject({
  marin: z.looseObject({ dependencyGroups: z.record(z.string(), z.array(z.string().min(1))).optional() }).optional(),
});

/**
 * Reads `marin.dependencyGroups` from `<workspace>/package.json`; a missing file or section means none.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT when the file is not JSON or the section is malformed
 */
export function readDependencyGroups(workspace: string): DeclaredDependencyGroups {
  let text: string;
  try {
    text = readFileSync(join(workspace, 'package.json'), 'utf8');
  } catch {
    return {};
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `workspace package.json is not valid JSON`, { cause, details: { workspace } });
  }
  const parsed = PackageJsonSchema.safeParse(json);
  if (!parsed.success) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', 'invalid marin.dependencyGroups in the workspace package.json: each group must list "pkg@range" strings', {
      cause: parsed.error,
      details: { workspace, issues: parsed.error.issues },
    });
  }
  return parsed.data.marin?.dependencyGroups ?? {};
}

/**
 * The dependency groups a job gets, as declared in the workspace root `package.json`. Omitted (`undefined`/`null`) derives them from the device —
 * GPU → `['gpu']`, TPU → `['tpu']`, CPU → `[]` — dropping derived names the workspace does not declare. An explicit
 * list (including `[]`) is used as given, and every name in it must be declared.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT naming an explicitly requested group the workspace does not declare
 */
export function resolveDependencyGroups(
  requested: readonly string[] | null | undefined,
  device: DeviceSpec,
  declared: DeclaredDependencyGroups,
): string[] {
  if (requested === undefined || requested === null) {
    const derived = device.kind === 'cpu' ? [] : [device.kind];
    return derived.filter((g) => Object.hasOwn(declared, g));
  }
  const unknown = requested.filter((g) => !Object.hasOwn(declared, g));
  if (unknown.length > 0) {
    const known = Object.keys(declared);
    throw new FrayError(
      'FRAY_INVALID_ARGUMENT',
      `unknown dependency group ${unknown.map((g) => `"${g}"`).join(', ')}; the workspace package.json declares ${known.length === 0 ? 'none' : known.map((g) => `"${g}"`).join(', ')} under marin.dependencyGroups`,
      { details: { unknown, known } },
    );
  }
  return [...new Set(requested)];
}

/** The npm package specs of `groups`, in group order, de-duplicated. */
export function dependencyGroupPackages(groups: readonly string[], declared: DeclaredDependencyGroups): string[] {
  return [...new Set(groups.flatMap((g) => declared[g] ?? []))];
}
