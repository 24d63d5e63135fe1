/**
 * What a placement constraint is: a typed test on one worker attribute, REQUIRED (filters) or
 * PREFERRED (ranks). Part of what a job is described with; matching is `constraint-match.ts`, the
 * constraints a device implies and the merge of their sources are `device-constraints.ts`.
 */

/** A typed worker attribute value; strings that parse as numbers compare numerically. */
export type AttributeValue = string | number;

/** Worker attributes by key (`device-type`, `tpu-name`, `region`, `taint:<x>`, …). */
export type WorkerAttributes = Readonly<Record<string, AttributeValue>>;

/** Constraint operators. */
export type ConstraintOp = 'EQ' | 'NE' | 'EXISTS' | 'NOT_EXISTS' | 'GT' | 'GE' | 'LT' | 'LE' | 'IN';

/** `REQUIRED` constraints filter workers; `PREFERRED` ones only rank them. */
export type ConstraintMode = 'REQUIRED' | 'PREFERRED';

/** One placement constraint on a worker attribute. */
export interface Constraint {
  /** Attribute key, e.g. `device-variant`. */
  readonly key: string;
  /** Comparison operator. */
  readonly op: ConstraintOp;
  /** Operand of `EQ NE GT GE LT LE`. */
  readonly value?: AttributeValue;
  /** Operands of `IN`. */
  readonly values?: readonly AttributeValue[];
  /** @default 'REQUIRED' */
  readonly mode?: ConstraintMode;
}
