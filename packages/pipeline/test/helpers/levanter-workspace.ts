import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Executor, silentLogger } from '@marin/executor';
import type { ExecutorStep, ProgressStream } from '@marin/executor';
import { withClient } from '@marin/fray';
import type { Client } from '@marin/fray';

const ENV_KEYS = ['MARIN_PREFIX', 'HF_HUB_OFFLINE', 'WANDB_API_KEY'] as const;

/** Where a run's progress display goes, and how much it shows. @default stderr at the normal level */
export interface RunDisplay {
  stream: ProgressStream;
  verbosity?: 'quiet' | 'normal' | 'verbose';
  statusIntervalMs?: number;
}

/** A temp dir for one Levanter test file, and the offline environment its jobs inherit while it is open. */
export interface LevanterWorkspace extends AsyncDisposable {
  /** The temp dir; `close()` removes it. */
  readonly dir: string;
  /** The executor's prefix: `<dir>/prefix`. */
  readonly prefix: string;
  /** The jobs' `MARIN_PREFIX` (Levanter's temp dirs): `<dir>/marin`. */
  readonly marinPrefix: string;
  /** Runs `steps` with the executor under `client`, then closes the client; `display` captures what the run shows. */
  run(steps: ExecutorStep[], client: Client, display?: RunDisplay): Promise<Map<ExecutorStep, string>>;
  /** Restores the environment and removes `dir`. */
  close(): Promise<void>;
}

/**
 * Creates a temp dir and points this process's environment at it, fully offline: jobs on the local backend
 * inherit it, so Levanter reads no Hugging Face hub and logs to no W&B.
 */
export async function openLevanterWorkspace(name: string): Promise<LevanterWorkspace> {
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  const prefix = join(dir, 'prefix');
  const marinPrefix = join(dir, 'marin');
  const saved = new Map(ENV_KEYS.map((key) => [key, process.env[key]]));
  process.env['MARIN_PREFIX'] = marinPrefix;
  process.env['HF_HUB_OFFLINE'] = '1';
  delete process.env['WANDB_API_KEY'];
  const close = async (): Promise<void> => {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await rm(dir, { recursive: true, force: true });
  };
  return {
    dir,
    prefix,
    marinPrefix,
    async run(steps, client, display) {
      const { stream, ...options } = display ?? {};
      try {
        return await withClient(client, () => new Executor({ prefix, logger: silentLogger, ...(stream === undefined ? {} : { progressStream: stream }) }).run(steps, { progress: 'plain', ...options }));
      } finally {
        await client.close();
      }
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
