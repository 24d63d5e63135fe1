import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { IrisError } from '../errors.js';

/** Options of {@link buildSetupCommands}. */
export const SetupOptionsSchema = z.object({
  /** Root of the bundle (the workspace); its `package.json` decides the npm steps. */
  bundleRoot: z.string().min(1),
  /** Dependency groups of the root `package.json` (`"marin": { "dependencyGroups": … }`). @default [] */
  dependencyGroups: z.array(z.string().min(1)).default([]),
  /** Extra npm specs (`pkg@range`) installed without saving. @default [] */
  npmPackages: z.array(z.string().min(1)).default([]),
});

/** What callers pass to {@link buildSetupCommands}. */
export type SetupOptions = z.input<typeof SetupOptionsSchema>;

const PackageJsonSchema = z.looseObject({
  marin: z.looseObject({ dependencyGroups: z.record(z.string(), z.array(z.string())).optional() }).optional(),
});

/** The base install step; `npm ci` fails on partial registry mirrors, so it is `npm install`. */
export const NPM_INSTALL_COMMAND: readonly string[] = ['npm', 'install', '--no-audit', '--no-fund'];

/** The workspace's own setup hook (e.g. a build), run after dependencies. */
export const IRIS_SETUP_HOOK_COMMAND: readonly string[] = ['npm', 'run', 'iris:setup', '--if-present'];

/**
 * Builds the setup commands of a job: `npm install` when the bundle has a `package.json`,
 * `npm install --no-save <specs>` for the requested dependency groups and packages, then the
 * `iris:setup` hook. Workers run the list as given; they cache the install steps by lockfile hash.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT if a requested dependency group is not declared
 */
export function buildSetupCommands(options: SetupOptions): string[][] {
  const parsed = SetupOptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `invalid setup options: ${z.prettifyError(parsed.error)}`, { cause: parsed.error });
  }
  const { bundleRoot, dependencyGroups, npmPackages } = parsed.data;
  const packageJsonPath = join(bundleRoot, 'package.json');
  const hasPackageJson = existsSync(packageJsonPath);
  const groups = hasPackageJson ? readDependencyGroups(packageJsonPath) : {};
  const specs: string[] = [];
  for (const group of dependencyGroups) {
    const members = groups[group];
    if (members === undefined) {
      const known = Object.keys(groups);
      throw new IrisError(
        'IRIS_INVALID_ARGUMENT',
        `unknown dependency group "${group}"; declared groups: ${known.length === 0 ? '(none)' : known.join(', ')}`,
        { details: { group, known } },
      );
    }
    specs.push(...members);
  }
  specs.push(...npmPackages);
  const commands: string[][] = [];
  if (hasPackageJson) commands.push([...NPM_INSTALL_COMMAND]);
  const unique = [...new Set(specs)];
  if (unique.length > 0) commands.push(['npm', 'install', '--no-save', '--no-audit', '--no-fund', ...unique]);
  if (hasPackageJson) commands.push([...IRIS_SETUP_HOOK_COMMAND]);
  return commands;
}

function readDependencyGroups(path: string): Record<string, string[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `cannot read "${path}" as JSON`, { cause: e });
  }
  const parsed = PackageJsonSchema.safeParse(raw);
  if (!parsed.success) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `"marin.dependencyGroups" in "${path}" must map names to lists of npm specs`, {
      cause: parsed.error,
    });
  }
  return parsed.data.marin?.dependencyGroups ?? {};
}

/** True for the steps cached by dependency key rather than by bundle: `npm install`/`npm i`/`npm ci`. */
export function isDependencyStep(argv: readonly string[]): boolean {
  return argv[0] === 'npm' && (argv[1] === 'install' || argv[1] === 'i' || argv[1] === 'ci');
}
