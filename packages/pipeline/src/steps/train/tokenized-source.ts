import { ExecutorStep, InputName, VersionedValue } from '@marin/executor';

/** Where a token cache comes from: the tokenize step, a reference into a step, or a path/URL. */
export type TokenizedSource = ExecutorStep | InputName | string;

/** What a tokenizer can be in a step config: a name, a directory, a repo id, or the step that downloaded one. */
export type TokenizerRef = string | ExecutorStep | InputName;

/** The step behind a source, or `null` for a plain path. */
export function stepOf(source: TokenizedSource): ExecutorStep | null {
  if (source instanceof ExecutorStep) return source;
  if (source instanceof InputName) return source.step ?? null;
  return null;
}

function configField(source: TokenizedSource, key: string): unknown {
  const config = stepOf(source)?.config;
  if (typeof config !== 'object' || config === null || !(key in config)) return undefined;
  const value = (config as Record<string, unknown>)[key];
  // A versioned value (what defaultTokenize writes) is read through; it is versioned again where it is used.
  return value instanceof VersionedValue ? value.value : value;
}

/** The tokenizer of the tokenize step behind `source`, or `undefined` for a plain path or a step without one. */
export function tokenizerOf(source: TokenizedSource): TokenizerRef | undefined {
  const tokenizer = configField(source, 'tokenizer');
  if (typeof tokenizer === 'string' || tokenizer instanceof ExecutorStep || tokenizer instanceof InputName) return tokenizer;
  return undefined;
}

/**
 * The sequence length a cache was built for, when its step records one (`seq_len` in its config, as a
 * pretokenized cache of packed sequences does); `null` for document caches, which fit any length.
 */
export function seqLenOf(source: TokenizedSource): number | null {
  const seqLen = configField(source, 'seq_len');
  return typeof seqLen === 'number' ? seqLen : null;
}

/** A key that is equal for the same tokenizer: the name or path, or the name of the step that downloaded it. */
export function tokenizerKey(tokenizer: TokenizerRef): string {
  if (typeof tokenizer === 'string') return tokenizer;
  if (tokenizer instanceof ExecutorStep) return `step "${tokenizer.name}"`;
  if (tokenizer.step === null) return String(tokenizer.name);
  return `step "${tokenizer.step.name}"${tokenizer.name === null ? '' : `/${tokenizer.name}`}`;
}

/** The basename of the source's step name (or path): Levanter's component name for it. */
export function componentNameOf(source: TokenizedSource): string {
  const step = stepOf(source);
  const label = step !== null ? step.name : (source as string);
  const parts = label.replace(/\/+$/, '').split('/');
  return parts[parts.length - 1] || 'train';
}

/** `step "tokenized/x"` or `"/path"`, for messages. */
export function describeSource(source: TokenizedSource): string {
  const step = stepOf(source);
  return step !== null ? `step "${step.name}"` : `"${String(source)}"`;
}

/** The tags the tokenize step behind `source` gives its cache's metrics (`tags` in its config), or `[]`. */
export function tagsOf(source: TokenizedSource): string[] {
  const tags = configField(source, 'tags');
  return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [];
}
