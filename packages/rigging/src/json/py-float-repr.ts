/**
 * Python's `repr()` of a float, as `json.dumps` writes it.
 *
 * Shortest round-trip digits (the same digits JavaScript picks), positional notation when the decimal
 * exponent `e` satisfies `-4 <= e < 16` (always with a digit after the point), otherwise `d[.ddd]e±XX`
 * with an explicit sign and at least two exponent digits. Non-finite values use JSON's bare `NaN`,
 * `Infinity` and `-Infinity`.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  if (x === 0) return `${sign}0.0`;
  const abs = Math.abs(x);
  if (abs >= 1e-4 && abs < 1e16) {
    // JavaScript already prints this range positionally with the same shortest digits.
    const s = String(x);
    return s.includes('.') ? s : `${s}.0`;
  }
  // toExponential() without an argument yields the shortest round-trip digits: "d.ddde±X".
  const exp = abs.toExponential();
  const ePos = exp.indexOf('e');
  const mantissa = exp.slice(0, ePos);
  const e = Number(exp.slice(ePos + 1));
  const digits = mantissa.replace('.', '');
  if (e >= -4 && e < 16) {
    if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
    const intLen = e + 1;
    if (digits.length <= intLen) return `${sign}${digits}${'0'.repeat(intLen - digits.length)}.0`;
    return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
  }
  const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
  const absE = Math.abs(e);
  return `${sign}${digits[0] ?? ''}${frac}e${e < 0 ? '-' : '+'}${absE < 10 ? '0' : ''}${absE}`;
}

/**
 * Python's `json.dumps` of an integer-valued finite number: exact decimal digits, `-0` as `0`.
 *
 * Numbers at or beyond 2**53 go through `BigInt`, so `1e20` is `100000000000000000000`, not `1e+20`.
 */
export function pyIntRepr(x: number): string {
  if (x === 0) return '0';
  if (Math.abs(x) < 2 ** 53) return String(x);
  return BigInt(x).toString();
}
