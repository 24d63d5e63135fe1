import { ConstraintMode, ConstraintOp } from '../gen/iris/v1/types.js';
import type { Constraint as ProtoConstraint, AttributeValue as ProtoValue } from '../gen/iris/v1/types.js';
import type { AttributeValue, Constraint } from '../core/constraints.js';

function valueOf(v: ProtoValue | undefined): AttributeValue | undefined {
  return v?.v?.value;
}

/** A plain attribute value as its proto oneof (integers as `int_value`, other numbers as `float_value`). */
export function attributeValueToProto(v: AttributeValue): ProtoValue {
  if (typeof v === 'string') return { v: { $case: 'stringValue', value: v } };
  return { v: Number.isInteger(v) ? { $case: 'intValue', value: v } : { $case: 'floatValue', value: v } };
}

/** The domain view of a proto constraint. */
export function constraintFromProto(c: ProtoConstraint): Constraint {
  const op = (ConstraintOp[c.op] ?? 'CONSTRAINT_OP_EQ').replace('CONSTRAINT_OP_', '') as Constraint['op'];
  const value = valueOf(c.value);
  return {
    key: c.key,
    op,
    ...(value === undefined ? {} : { value }),
    values: c.values.map(valueOf).filter((v): v is AttributeValue => v !== undefined),
    mode: c.mode === ConstraintMode.CONSTRAINT_MODE_PREFERRED ? 'PREFERRED' : 'REQUIRED',
  };
}

/** The proto form of a domain constraint. */
export function constraintToProto(c: Constraint): ProtoConstraint {
  return {
    key: c.key,
    op: ConstraintOp[`CONSTRAINT_OP_${c.op}`],
    value: c.value === undefined ? undefined : attributeValueToProto(c.value),
    values: (c.values ?? []).map(attributeValueToProto),
    mode: c.mode === 'PREFERRED' ? ConstraintMode.CONSTRAINT_MODE_PREFERRED : ConstraintMode.CONSTRAINT_MODE_REQUIRED,
  };
}
