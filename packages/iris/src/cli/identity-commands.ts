import { readFileSync } from 'node:fs';
import type { IrisClient } from '../client/iris-client.js';
import type { ApiKeyInfo } from '../wire/identity-views.js';
import { createIrisClient } from '../client/iris-client.js';
import { IrisError } from '../errors.js';
import { requireConnection, requireController } from './cli-context.js';
import type { CliIo } from './cli-context.js';
import { explainControllerError } from './cli-errors.js';
import { formatTable } from './cli-format.js';
import { parseNumberFlag } from './cli-options.js';
import { credentialsPath, storeKey } from './credentials.js';

async function withClient<T>(controller: string | undefined, io: CliIo, fn: (c: IrisClient) => Promise<T>): Promise<T> {
  await using connection = await requireConnection(controller, io.env);
  return await connection.use(fn);
}

const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'));

function keyRow(k: ApiKeyInfo): string[] {
  return [k.keyId, k.user, k.role, k.name || '-', time(k.createdAtMs), k.createdBy, k.revokedAtMs === null ? 'active' : `revoked ${time(k.revokedAtMs)}`, time(k.lastUsedAtMs)];
}

/** Flags of `iris key create`. */
export interface KeyCreateFlags {
  controller?: string;
  user: string;
  role?: string;
  name?: string;
  json?: boolean;
}

/**
 * `iris key create --user U [--role admin|user] [--name N]` (admins): prints the new key once on
 * stdout (nothing else goes there) and what it is on stderr.
 */
export async function keyCreateCommand(flags: KeyCreateFlags, io: CliIo): Promise<number> {
  if (flags.role !== undefined && flags.role !== 'admin' && flags.role !== 'user') throw new IrisError('IRIS_INVALID_ARGUMENT', `--role "${flags.role}" must be admin or user`);
  const role = flags.role as 'admin' | 'user' | undefined;
  return withClient(flags.controller, io, async (c) => {
    const { key, info } = await c.createApiKey({ user: flags.user, ...(role ? { role } : {}), name: flags.name ?? '' });
    if (flags.json) {
      io.stdout(`${JSON.stringify({ key, ...info }, null, 2)}\n`);
    } else {
      io.stdout(`${key}\n`);
      io.stderr(`iris: created key ${info.keyId} for ${info.user} (${info.role}); it is shown only now. The user runs \`iris login\` and pastes it.\n`);
    }
    return 0;
  });
}

/** `iris key list [--user U] [--all] [--json]`: admins see every user's keys, users their own. */
export async function keyListCommand(flags: { controller?: string; user?: string; all?: boolean; json?: boolean }, io: CliIo): Promise<number> {
  return withClient(flags.controller, io, async (c) => {
    const keys = await c.listApiKeys({ ...(flags.user ? { user: flags.user } : {}), includeRevoked: flags.all === true });
    if (flags.json) io.stdout(`${JSON.stringify(keys, null, 2)}\n`);
    else io.stdout(`${formatTable(['KEY ID', 'USER', 'ROLE', 'NAME', 'CREATED', 'BY', 'STATE', 'LAST USED'], keys.map(keyRow))}\n`);
    return 0;
  });
}

/** `iris key revoke KEY_ID...`: refused by the controller from the next request on. */
export async function keyRevokeCommand(keyIds: string[], flags: { controller?: string }, io: CliIo): Promise<number> {
  return withClient(flags.controller, io, async (c) => {
    for (const id of keyIds) {
      const info = await c.revokeApiKey(id);
      io.stdout(`revoked ${info.keyId} (${info.user})\n`);
    }
    return 0;
  });
}

async function readKey(flags: { keyFile?: string }, io: CliIo, stdin: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<string> {
  if (flags.keyFile !== undefined) return readFileSync(flags.keyFile, 'utf8').trim();
  if (stdin.isTTY) io.stderr('API key (input hidden): ');
  const tty = stdin as NodeJS.ReadStream;
  if (tty.isTTY) tty.setRawMode(true);
  let text = '';
  try {
    for await (const chunk of stdin) {
      text += String(chunk);
      if (tty.isTTY && /[\r\n\u0003\u0004]/.test(text)) break;
    }
  } finally {
    if (tty.isTTY) {
      tty.setRawMode(false);
      tty.pause();
      io.stderr('\n');
    }
  }
  if (text.includes('\u0003')) throw new IrisError('IRIS_CANCELLED', 'login cancelled');
  // Typed in raw mode: apply backspaces (DEL or BS) ourselves.
  let line = '';
  for (const ch of text.split(/[\r\n\u0004]/)[0]!) line = ch === '\u007f' || ch === '\b' ? line.slice(0, -1) : line + ch;
  return line.trim();
}

/**
 * `iris login [--controller A] [--key-file F]`: reads an API key (from the file, or stdin: piped,
 * or typed without echo), checks it with `WhoAmI` and stores it for that controller in
 * `$IRIS_HOME/credentials.json` (0600). Every later command to that address sends it.
 */
export async function loginCommand(flags: { controller?: string; keyFile?: string }, io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const controller = await requireController(flags.controller, { ...io.env, IRIS_API_KEY: '' });
  const key = await readKey(flags, io, stdin);
  if (key === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'no API key given; paste the key `iris key create` printed');
  await using client = createIrisClient({ address: controller.address, token: key });
  const me = await client.whoAmI().catch((e: unknown) => {
    throw explainControllerError(e, controller.address);
  });
  if (me.authMode !== 'api-keys' || me.user === null) {
    throw new IrisError('IRIS_FAILED_PRECONDITION', `the controller at ${controller.address} does not use per-user API keys (auth mode ${me.authMode}); nothing to log in to`);
  }
  storeKey(io.env, controller.address, key);
  io.stdout(`logged in to ${controller.address} as ${me.user} (${me.role}); key ${me.keyId ?? ''} stored in ${credentialsPath(io.env)}\n`);
  return 0;
}

/** `iris logout [--controller A]`: forgets the stored key for that controller (it stays valid until revoked). */
export async function logoutCommand(flags: { controller?: string }, io: CliIo): Promise<number> {
  const controller = await requireController(flags.controller, io.env);
  storeKey(io.env, controller.address, undefined);
  io.stdout(`logged out of ${controller.address}\n`);
  return 0;
}

/** `iris whoami [--json]`. */
export async function whoAmICommand(flags: { controller?: string; json?: boolean }, io: CliIo): Promise<number> {
  return withClient(flags.controller, io, async (c) => {
    const me = await c.whoAmI();
    if (flags.json) io.stdout(`${JSON.stringify(me)}\n`);
    else io.stdout(`${me.user ?? '(cluster)'} ${me.role} (auth ${me.authMode}${me.keyId ? `, key ${me.keyId}` : ''})\n`);
    return 0;
  });
}

/** `iris audit list [--limit N] [--json]` (admins): newest first. */
export async function auditListCommand(flags: { controller?: string; limit?: string; json?: boolean }, io: CliIo): Promise<number> {
  const limit = flags.limit === undefined ? 100 : parseNumberFlag('--limit', flags.limit, true);
  return withClient(flags.controller, io, async (c) => {
    const entries = await c.listAuditLog({ limit });
    if (flags.json) io.stdout(`${JSON.stringify(entries, null, 2)}\n`);
    else io.stdout(`${formatTable(['ID', 'TIME', 'ACTOR', 'ACTION', 'TARGET', 'DETAILS'], entries.map((e) => [String(e.id), time(e.atMs), e.actor, e.action, e.target, JSON.stringify(e.details)]))}\n`);
    return 0;
  });
}
