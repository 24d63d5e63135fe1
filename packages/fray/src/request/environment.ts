import { z } from 'zod';
import { FrayError } from '../errors.js';

/** Where and with what a job runs, beyond its command. */
export interface EnvironmentConfig {
  /** Bundle root. @default the git top level of `process.cwd()` (resolved by the backend) */
  readonly workspace?: string;
  /** Extra environment variables of the job; nothing else of the submitter's env is forwarded. */
  readonly envVars?: Readonly<Record<string, string>>;
  /** Extra `pkg@range` specs installed during setup (remote backends only). */
  readonly npmPackages?: readonly string[];
  /** Named npm package lists from the workspace root `package.json` (`marin.dependencyGroups`); omitted = derived from the device. */
  readonly dependencyGroups?: readonly string[];
  /** Replaces the derived setup (npm install, groups, `iris:setup`) when given. */
  readonly setupCommands?: readonly (readonly string[])[];
}

const EnvironmentSchema = z.strictObject({
  workspace: z.string().min(1).optional(),
  envVars: z.record(z.string(), z.string()).optional(),
  npmPackages: z.array(z.string().min(1)).optional(),
  dependencyGroups: z.array(z.string().min(1)).optional(),
  setupCommands: z.array(z.array(z.string()).min(1)).optional(),
});

/** Variables copied from the submitter when set (Marin forwards the HF and W&B tokens). */
export const FORWARDED_ENV_VARS: readonly string[] = Object.freeze(['HF_TOKEN', 'WANDB_API_KEY', 'MARIN_PREFIX']);

/** Literal defaults every job gets unless the caller sets them. */
export const DEFAULT_JOB_ENV: Readonly<Record<string, string>> = Object.freeze({
  HF_DATASETS_TRUST_REMOTE_CODE: '1',
  TOKENIZERS_PARALLELISM: 'false',
});

/**
 * Builds a job environment: forwards `HF_TOKEN`, `WANDB_API_KEY` and `MARIN_PREFIX` from `sourceEnv` when set,
 * adds {@link DEFAULT_JOB_ENV}, and lets the caller's `envVars` win. The result is frozen.
 *
 * @param sourceEnv the submitter's environment. @default process.env
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for a malformed option (the issue path is in `details.issues`)
 */
export function createEnvironment(
  options: EnvironmentConfig = {},
  sourceEnv: Readonly<Record<string, string | undefined>> = process.env,
): EnvironmentConfig {
  const parsed = EnvironmentSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? 'environment' : `environment.${issue.path.join('.')}`;
    throw new FrayError('FRAY_INVALID_ARGUMENT', `invalid ${where}: ${issue?.message ?? 'bad value'}`, {
      cause: parsed.error,
      details: { issues: parsed.error.issues },
    });
  }
  const envVars: Record<string, string> = {};
  for (const key of FORWARDED_ENV_VARS) {
    const value = sourceEnv[key];
    if (value !== undefined && value !== '') envVars[key] = value;
  }
  Object.assign(envVars, DEFAULT_JOB_ENV, parsed.data.envVars ?? {});
  const out: {
    -readonly [K in keyof EnvironmentConfig]: EnvironmentConfig[K];
  } = { envVars: Object.freeze(envVars) };
  if (parsed.data.workspace !== undefined) out.workspace = parsed.data.workspace;
  if (parsed.data.npmPackages !== undefined) out.npmPackages = Object.freeze([...parsed.data.npmPackages]);
  if (parsed.data.dependencyGroups !== undefined) out.dependencyGroups = Object.freeze([...parsed.data.dependencyGroups]);
  if (parsed.data.setupCommands !== undefined) {
    out.setupCommands = Object.freeze(parsed.data.setupCommands.map((c) => Object.freeze([...c])));
  }
  return Object.freeze(out);
}
