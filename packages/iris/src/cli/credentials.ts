import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { IrisError } from '../errors.js';
import { irisHome } from './cli-context.js';

/** `$IRIS_HOME/credentials.json`: the API key `iris login` stored for each controller address. */
const CredentialsSchema = z.object({ version: z.literal(1), keys: z.record(z.string(), z.string()) });
type Credentials = z.output<typeof CredentialsSchema>;

/** Path of the CLI's stored credentials (mode 0600). */
export function credentialsPath(env: NodeJS.ProcessEnv): string {
  return join(irisHome(env), 'credentials.json');
}

function read(env: NodeJS.ProcessEnv): Credentials {
  const path = credentialsPath(env);
  if (!existsSync(path)) return { version: 1, keys: {} };
  try {
    const parsed = CredentialsSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through: say which file to fix
  }
  throw new IrisError('IRIS_INVALID_ARGUMENT', `${path} is not a credentials file written by \`iris login\`; delete it and log in again`);
}

/** The key stored for `address`, if any. */
export function storedKey(env: NodeJS.ProcessEnv, address: string): string | undefined {
  return read(env).keys[address];
}

/**
 * Stores (or, with `key` undefined, forgets) the key for `address`. The file is written beside
 * itself with mode 0600 and renamed over, inside a 0700 `$IRIS_HOME`, so no other user can read it
 * and a crash never leaves half a file.
 */
export function storeKey(env: NodeJS.ProcessEnv, address: string, key: string | undefined): void {
  const home = irisHome(env);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const credentials = read(env);
  if (key === undefined) delete credentials.keys[address];
  else credentials.keys[address] = key;
  const path = credentialsPath(env);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
