/** The parsed `tokenizer_config.json` of a Hugging Face tokenizer directory (only the keys read here are typed). */
export type TokenizerConfigJson = Record<string, unknown>;

/**
 * A special token's text from `tokenizer_config.json`, as Levanter's `_resolve_special_token` reads it:
 * the value itself when it is a string, its `content` when it is an object (`{"content": "<s>", ...}`),
 * otherwise `undefined`.
 */
export function resolveSpecialToken(config: TokenizerConfigJson, key: string): string | undefined {
  const value = config[key];
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const content = (value as Record<string, unknown>)['content'];
    return typeof content === 'string' ? content : undefined;
  }
  return undefined;
}
