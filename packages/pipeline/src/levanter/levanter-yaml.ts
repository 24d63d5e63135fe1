/** A value Levanter's config loader (draccus over YAML) can read: JSON without non-finite numbers. */
export type LevanterConfigValue = string | number | boolean | null | undefined | readonly LevanterConfigValue[] | { readonly [key: string]: LevanterConfigValue };

/**
 * Writes a Levanter config document. The text is JSON (a subset of YAML 1.2) after a `#` comment
 * header, so every string, key and nesting level round-trips exactly; YAML's implicit typing never
 * turns a value like `no`, `1e-3` or `01` into something else. Floats in exponent form are written
 * with a mantissa dot and a signed exponent (`1.0e-08`), the only form PyYAML's YAML 1.1 resolver
 * reads as a float. Keys whose value is `undefined` are left out, so Levanter applies its own default.
 *
 * @param header comment lines written first (without the `# `)
 * @throws {TypeError} for a non-finite number (Levanter has no spelling for it here)
 */
export function toLevanterYaml(value: LevanterConfigValue, header: readonly string[] = []): string {
  const comments = header.map((line) => `# ${line}`.trimEnd()).join('\n');
  return `${comments === '' ? '' : `${comments}\n`}${emit(value, '')}\n`;
}

/** A number as YAML 1.1 and 1.2 both read it: integers plainly, floats with a dot before any exponent. */
export function formatYamlNumber(n: number): string {
  if (!Number.isFinite(n)) throw new TypeError(`cannot write the non-finite number ${String(n)} into a Levanter config`);
  const s = String(n);
  const m = /^(-?\d+)(?:\.(\d+))?e([+-])(\d+)$/.exec(s);
  if (m === null) return s;
  const [, whole, frac, sign, exp] = m;
  return `${whole}.${frac ?? '0'}e${sign}${(exp ?? '0').padStart(2, '0')}`;
}

function emit(value: LevanterConfigValue, indent: string): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return formatYamlNumber(value);
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = (value as readonly LevanterConfigValue[]).map((v) => emit(v, inner));
    if (items.length === 0) return '[]';
    if (items.every((item) => !item.includes('\n')) && items.join(', ').length <= 80) return `[${items.join(', ')}]`;
    return `[\n${items.map((item) => `${inner}${item}`).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as { readonly [key: string]: LevanterConfigValue | undefined }).filter(
    (entry): entry is [string, LevanterConfigValue] => entry[1] !== undefined,
  );
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${emit(v, inner)}`).join(',\n')}\n${indent}}`;
}
