import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { IrisError } from '../errors.js';

/**
 * The controller's native addons are optional peer dependencies: a client, the CLI's job commands and
 * every package built on `@marin/iris` install without compiling them. Each one is loaded on first use,
 * and a missing one fails with the command that installs it.
 */
const PEERS = {
  'better-sqlite3': { range: '^12.11.1', usedFor: 'the Iris controller (its SQLite state)' },
  'zstd-napi': { range: '^0.0.13', usedFor: 'controller checkpoints' },
} as const;

type Peer = keyof typeof PEERS;

const require = createRequire(import.meta.url);
let sqlite: typeof BetterSqlite3 | undefined;

/** better-sqlite3's `Database` constructor, loaded on first call. */
export function loadSqlite(): typeof BetterSqlite3 {
  if (sqlite) return sqlite;
  try {
    sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  } catch (e) {
    throw missingPeer('better-sqlite3', e);
  }
  return sqlite;
}

/** Where better-sqlite3 resolves from here, for a worker thread that loads it itself. */
export function sqliteModulePath(): string {
  loadSqlite();
  return require.resolve('better-sqlite3');
}

/** The zstd-napi binding, loaded on first call. */
export async function loadZstd(): Promise<typeof import('zstd-napi')> {
  try {
    return await import('zstd-napi');
  } catch (e) {
    throw missingPeer('zstd-napi', e);
  }
}

function missingPeer(name: Peer, cause: unknown): unknown {
  const code = (cause as { code?: unknown } | null)?.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return cause;
  const { range, usedFor } = PEERS[name];
  return new IrisError(
    'IRIS_FAILED_PRECONDITION',
    `${usedFor} needs the optional peer dependency "${name}", which is not installed: run "npm install ${name}@${range}" next to @marin/iris`,
    { cause },
  );
}
