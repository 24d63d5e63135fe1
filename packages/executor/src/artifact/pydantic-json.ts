import { compareCodePoints, FloatValue, orderedKeys } from '@marin/rigging';

/**
 * A pydantic float as `model_dump_json` writes it: shortest round-trip digits, positional when the decimal
 * exponent `e` satisfies `-5 <= e < 16` (always with a digit after the point), else `d[.ddd]e±X` with an
 * explicit sign and no exponent padding (`1e-7`, `1e+16`). Non-finite values are `null` (pydantic's default
 * `ser_json_inf_nan`).
 */
export function pydanticFloat(x: number): string {
  if (!Number.isFinite(x)) return 'null';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  if (x === 0) return `${sign}0.0`;
  const exp = Math.abs(x).toExponential();
  const ePos = exp.indexOf('e');
  const digits = exp.slice(0, ePos).replace('.', '');
  const e = Number(exp.slice(ePos + 1));
  if (e >= -5 && e < 16) {
    if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
    const intLen = e + 1;
    if (digits.length <= intLen) return `${sign}${digits}${'0'.repeat(intLen - digits.length)}.0`;
    return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
  }
  const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
  return `${sign}${digits[0] ?? ''}${frac}e${e < 0 ? '-' : '+'}${Math.abs(e)}`;
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** A JSON string as pydantic (serde_json) writes it: `"`, `\` and control characters escaped, everything else raw UTF-8. */
export function pydanticString(s: string): string {
  return `"${s.replace(/["\\\u0000-\u001f]/g, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/** Options of {@link pydanticJson}. */
export interface PydanticJsonOptions {
  /** Spaces per level (`model_dump_json(indent=n)`); `null` is pydantic's compact form (no spaces). @default 2 */
  indent?: number | null;
  /** Top-level keys (`config`) under which every object's keys are written sorted by code point. @default none */
  sortedUnder?: ReadonlySet<string>;
}

/**
 * JSON text as pydantic's `model_dump_json(indent=2)` writes a model of JSON-shaped values: `"key": value`
 * with the given indent, `[]`/`{}` for empty containers, integers as digits, floats (non-integral numbers and
 * `FloatValue`s) per {@link pydanticFloat}, strings per {@link pydanticString}. Object keys keep the order a parsed
 * Python file had (`parsePyJson` records it); a `Map` keeps insertion order. A plain object built in JavaScript
 * enumerates integer-like keys (`"2"`) first, unlike a Python dict: use a `Map` where that order matters.
 */
export function pydanticJson(value: unknown, options: PydanticJsonOptions = {}): string {
  const indent = options.indent === undefined ? '  ' : options.indent === null ? null : ' '.repeat(options.indent);
  const sortedUnder = options.sortedUnder ?? new Set<string>();
  const write = (v: unknown, depth: number, top: string): string => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'string') return pydanticString(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') return Number.isInteger(v) ? (Math.abs(v) < 2 ** 53 ? String(v) : BigInt(v).toString()) : pydanticFloat(v);
    if (FloatValue.is(v)) return pydanticFloat(v.value);
    const nl = indent === null ? '' : `\n${indent.repeat(depth + 1)}`;
    const end = indent === null ? '' : `\n${indent.repeat(depth)}`;
    const colon = indent === null ? ':' : ': ';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[${v.map((item) => `${nl}${write(item, depth + 1, top)}`).join(',')}${end}]`;
    }
    const record = v as Record<string, unknown>;
    const entries = v instanceof Map ? [...(v as Map<string, unknown>).entries()] : orderedKeys(record).map((k) => [k, record[k]] as [string, unknown]);
    if (entries.length === 0) return '{}';
    if (sortedUnder.has(top)) entries.sort((a, b) => compareCodePoints(a[0], b[0]));
    return `{${entries.map(([k, item]) => `${nl}${pydanticString(k)}${colon}${write(item, depth + 1, depth === 0 ? k : top)}`).join(',')}${end}}`;
  };
  return write(value, 0, '');
}
