import { existsSync, statSync } from 'node:fs';
import { PipelineError } from '../errors.js';

/** A tokenizer on the Hugging Face hub, pinned to a commit: `{ hubModel: 'meta-llama/Llama-3.1-8B', revision: '<40 hex>' }`. */
export interface HubTokenizerRef {
  /** The model repository holding the tokenizer files, `org/name`. */
  hubModel: string;
  /** The commit the files are read at: a full 40-hex-digit SHA (a branch or tag can move, so it is refused). */
  revision: string;
}

/** The files a tokenizer may consist of; only these are downloaded from a model repository. */
export const TOKENIZER_FILES = [
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'added_tokens.json',
  'tokenizer.model',
  'vocab.json',
  'merges.txt',
  'vocab.txt',
] as const;

const REPO_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const FULL_SHA = /^[0-9a-f]{40}$/;

/** True for `{ hubModel, … }` objects (whatever their fields hold; {@link parseHubTokenizer} checks them). */
export function isHubTokenizerRef(x: unknown): x is HubTokenizerRef {
  return typeof x === 'object' && x !== null && 'hubModel' in x;
}

/** The text form of a pinned hub tokenizer, `org/name@<sha>`: the name recorded in the caches it writes. */
export function hubTokenizerName(ref: HubTokenizerRef): string {
  return `${ref.hubModel}@${ref.revision}`;
}

function isLocalDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/**
 * The pinned hub tokenizer `tokenizer` names, or `null` when it names a location (a shipped tokenizer's name,
 * a local directory, a storage URL). Accepted forms: `{ hubModel: 'org/name', revision: '<40 hex>' }` and the
 * string `'org/name@<40 hex>'`. A bare `'org/name'` (Marin's unpinned form) that is not a local directory is a
 * hub id without a revision and is refused, because what it tokenizes with would change whenever the
 * repository does.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID (`details.field: 'tokenizer'`) for a hub id without a revision,
 *   a revision that is not a full commit SHA, or a repository id that is not `org/name`
 */
export function parseHubTokenizer(tokenizer: string | HubTokenizerRef): HubTokenizerRef | null {
  if (typeof tokenizer === 'string') {
    const at = tokenizer.lastIndexOf('@');
    if (at > 0 && REPO_ID.test(tokenizer.slice(0, at))) {
      return checked({ hubModel: tokenizer.slice(0, at), revision: tokenizer.slice(at + 1) }, tokenizer);
    }
    if (REPO_ID.test(tokenizer) && !tokenizer.startsWith('.') && !isLocalDirectory(tokenizer)) {
      throw invalid(
        `tokenizer "${tokenizer}" looks like a hub model id without a revision; pin it: { hubModel: '${tokenizer}', revision: '<40-hex commit sha>' } or '${tokenizer}@<sha>'`,
        tokenizer,
      );
    }
    return null;
  }
  return checked(tokenizer, JSON.stringify(tokenizer));
}

function checked(ref: HubTokenizerRef, shown: string): HubTokenizerRef {
  if (typeof ref.hubModel !== 'string' || !REPO_ID.test(ref.hubModel)) {
    throw invalid(`hub tokenizer ${shown}: hubModel must be a repository id "org/name"`, shown);
  }
  if (typeof ref.revision !== 'string' || ref.revision === '') {
    throw invalid(`hub tokenizer "${ref.hubModel}" has no revision; pin it with revision: '<40-hex commit sha>'`, shown);
  }
  if (!FULL_SHA.test(ref.revision)) {
    throw invalid(`hub tokenizer "${ref.hubModel}" revision "${ref.revision}" is not a full 40-hex commit sha (branches and tags move); pin the commit`, shown);
  }
  return { hubModel: ref.hubModel, revision: ref.revision };
}

function invalid(message: string, tokenizer: string): PipelineError {
  return new PipelineError('PIPELINE_CONFIG_INVALID', message, {
    details: { field: 'tokenizer', tokenizer, issues: [{ path: ['tokenizer'], message: 'a hub tokenizer needs a pinned revision' }] },
  });
}
