import { isProcessAlive } from '@marin/rigging';
import { join, resolve } from 'node:path';
import { listCheckpoints, restoreCheckpoint } from '../controller/store/controller-checkpoint.js';
import { IrisError } from '../errors.js';
import { readLocalClusterRecord } from './cli-context.js';
import type { CliIo } from './cli-context.js';
import { formatTable } from './cli-format.js';

/** Flags of `iris cluster controller restore-checkpoint`. */
export interface RestoreCheckpointFlags {
  remoteStateDir?: string;
  stateDir?: string;
  list?: boolean;
  checkpoint?: string;
  json?: boolean;
}

/**
 * `iris cluster controller restore-checkpoint --remote-state-dir URL (--list | --checkpoint ID --state-dir D)`:
 * lists a controller's checkpoints, or restores one into a stopped controller's state dir (the
 * database already there is kept beside it as `controller.sqlite3.replaced-<ms>`).
 */
export async function restoreCheckpointCommand(flags: RestoreCheckpointFlags, io: CliIo): Promise<number> {
  const remote = flags.remoteStateDir;
  if (!remote) throw new IrisError('IRIS_INVALID_ARGUMENT', '--remote-state-dir is required (the remote_state_dir the controller writes checkpoints to)');
  if (flags.list === true) {
    const all = await listCheckpoints(remote);
    if (flags.json) io.stdout(`${JSON.stringify(all.map((t) => ({ checkpoint: String(t), createdAt: new Date(t).toISOString() })), null, 2)}\n`);
    else if (all.length === 0) io.stderr(`no checkpoints under ${remote}\n`);
    else io.stdout(`${formatTable(['CHECKPOINT', 'CREATED'], all.map((t) => [String(t), new Date(t).toISOString()]))}\n`);
    return 0;
  }
  if (flags.checkpoint === undefined) throw new IrisError('IRIS_INVALID_ARGUMENT', 'give --list, or --checkpoint ID with --state-dir D');
  const createdAtMs = Number(flags.checkpoint);
  if (!Number.isInteger(createdAtMs) || createdAtMs <= 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `--checkpoint "${flags.checkpoint}": expected a checkpoint id from --list`);
  if (!flags.stateDir) throw new IrisError('IRIS_INVALID_ARGUMENT', '--state-dir is required: the stopped controller\'s state dir to restore into');
  const stateDir = resolve(flags.stateDir);
  const record = readLocalClusterRecord(io.env);
  if (record && resolve(record.stateDir) === stateDir && isProcessAlive(record.pid)) {
    throw new IrisError('IRIS_FAILED_PRECONDITION', `the local cluster (pid ${record.pid}) is running on ${stateDir}; stop it first (iris cluster stop)`);
  }
  const { replaced } = await restoreCheckpoint({ dbPath: join(stateDir, 'controller.sqlite3'), remoteStateDir: remote, createdAtMs });
  io.stdout(`restored checkpoint ${createdAtMs} (${new Date(createdAtMs).toISOString()}) into ${stateDir}${replaced ? `; the database it replaced is kept as ${replaced}` : ''}\n`);
  return 0;
}
