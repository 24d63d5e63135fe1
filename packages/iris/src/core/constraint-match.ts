import type { AttributeValue, Constraint, WorkerAttributes } from './constraints.js';

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Returns the numeric reading of an attribute or constraint operand: numbers as they are, strings
 * only when the whole string is a decimal number (`"0"`, `"2.5"`); everything else is `undefined`.
 */
export function numericValue(value: AttributeValue): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  // Most attribute values are names (`tpu`, `us-east1`): one that starts with a letter is no
  // number, and needs neither the trim nor the pattern.
  const first = value.charCodeAt(0) | 0x20;
  if (first >= 0x61 && first <= 0x7a) return undefined;
  const trimmed = value.trim();
  return NUMERIC.test(trimmed) ? Number(trimmed) : undefined;
}

/**
 * Canonical form used for equality: both sides numeric compare as numbers, anything else as
 * strings, so `tpu-worker-id EQ "0"` matches the int attribute `0`.
 */
export function equalityKey(value: AttributeValue): string {
  const n = numericValue(value);
  return n === undefined ? `s:${String(value)}` : `n:${n}`;
}

/** True when `constraint` holds for a worker with `attributes` (the mode is ignored here). */
export function constraintMatches(constraint: Constraint, attributes: WorkerAttributes): boolean {
  const actual = Object.prototype.hasOwnProperty.call(attributes, constraint.key) ? attributes[constraint.key] : undefined;
  if (constraint.op === 'NOT_EXISTS') return actual === undefined;
  if (actual === undefined) return false;
  switch (constraint.op) {
    case 'EXISTS':
      return true;
    case 'EQ':
      return constraint.value !== undefined && equalityKey(actual) === equalityKey(constraint.value);
    case 'NE':
      return constraint.value !== undefined && equalityKey(actual) !== equalityKey(constraint.value);
    case 'IN': {
      const key = equalityKey(actual);
      return (constraint.values ?? []).some((v) => equalityKey(v) === key);
    }
    case 'GT':
    case 'GE':
    case 'LT':
    case 'LE':
      return compareNumeric(constraint.op, actual, constraint.value);
  }
}

/** Ordered comparison; both sides must be numeric, else no match. */
export function compareNumeric(op: 'GT' | 'GE' | 'LT' | 'LE', actual: AttributeValue, operand: AttributeValue | undefined): boolean {
  if (operand === undefined) return false;
  const a = numericValue(actual);
  const b = numericValue(operand);
  if (a === undefined || b === undefined) return false;
  switch (op) {
    case 'GT':
      return a > b;
    case 'GE':
      return a >= b;
    case 'LT':
      return a < b;
    case 'LE':
      return a <= b;
  }
}

/** Renders a constraint the way diagnostics quote it: `device-variant EQ v5litepod-16`, `region IN [a, b]`. */
export function formatConstraint(constraint: Constraint): string {
  switch (constraint.op) {
    case 'EXISTS':
    case 'NOT_EXISTS':
      return `${constraint.key} ${constraint.op}`;
    case 'IN':
      return `${constraint.key} IN [${(constraint.values ?? []).map(String).join(', ')}]`;
    default:
      return `${constraint.key} ${constraint.op} ${String(constraint.value ?? '')}`;
  }
}

/** True for constraints that filter (`REQUIRED`, the default). */
export function isRequired(constraint: Constraint): boolean {
  return constraint.mode !== 'PREFERRED';
}
