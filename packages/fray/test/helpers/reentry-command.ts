import { join, relative } from 'node:path';
import { Entrypoint, findWorkspaceRoot } from '@marin/fray';
import type { BinaryEntrypoint } from '@marin/fray';

/** Options of {@link reentryCommand}. */
export interface ReentryCommandOptions {
  /** A script under `test/fixtures/` (`reentry-entry.ts` or its plain-JavaScript twin `reentry-entry.mjs`). */
  fixture: string;
  /** Node flags before the script. */
  nodeFlags?: string[];
  /** The script's own arguments. */
  args?: string[];
  /** `--prefix` and `--run-step` values. */
  prefix: string;
  runStep: string;
  /** Shipped as `step_config.json`; the fixture writes what it received to `config.out`. */
  config: { out: string; fail?: boolean };
}

/**
 * A callable's re-entry command shaped as the executor's step re-entry: `node <flags> ./<script> <args> --prefix P
 * --run-step R --step-config-file step_config.json`, the script relative to the workspace root (where re-entered
 * commands start) and `step_config.json` shipped as a file.
 */
export function reentryCommand(opts: ReentryCommandOptions): BinaryEntrypoint {
  const script = `./${relative(findWorkspaceRoot(), join(import.meta.dirname, '..', 'fixtures', opts.fixture))}`;
  return Entrypoint.fromBinary(
    'node',
    [...(opts.nodeFlags ?? []), script, ...(opts.args ?? []), '--prefix', opts.prefix, '--run-step', opts.runStep, '--step-config-file', 'step_config.json'],
    { files: { 'step_config.json': JSON.stringify(opts.config) } },
  );
}
