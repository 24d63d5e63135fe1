import { RiggingError } from '../errors.js';
import { pyFloatRepr } from './py-float-repr.js';

const BRAND = Symbol.for('@marin/rigging/FloatValue');

/**
 * A number that serializes as a Python `float`, even when it is integer-valued.
 *
 * JavaScript has one number type; Python has `int` and `float`, and `json.dumps(1)` is `1` while
 * `json.dumps(1.0)` is `1.0`. Wrap a number in a `FloatValue` (via {@link float}) wherever the Python
 * side would hold a float, so hashes and files match byte for byte. Instances are frozen.
 */
export class FloatValue {
  readonly [BRAND] = true;

  /** Wraps `value`; prefer the {@link float} factory, which validates its argument. */
  constructor(
    /** The wrapped number. */
    readonly value: number,
  ) {
    Object.freeze(this);
  }

  /** Brand check that still works when two copies of the module are loaded. */
  static is(x: unknown): x is FloatValue {
    return typeof x === 'object' && x !== null && BRAND in x;
  }

  /** The plain number, so arithmetic on a `FloatValue` works. */
  valueOf(): number {
    return this.value;
  }

  /** Python's `repr(float)` of the value: `1.0`, `1e-05`, `1e+20`, `nan`-style values as `NaN`/`Infinity`. */
  toString(): string {
    return pyFloatRepr(this.value);
  }
}

/**
 * Marks `x` as a Python float: `float(1)` serializes as `1.0` and hashes like Python `1.0`.
 *
 * A `FloatValue` is returned unchanged.
 *
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT if `x` is neither a number nor a `FloatValue`.
 */
export function float(x: number | FloatValue): FloatValue {
  if (FloatValue.is(x)) return x;
  if (typeof x !== 'number') {
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', `float() needs a number, got ${typeof x}`, {
      details: { type: typeof x },
    });
  }
  return new FloatValue(x);
}
