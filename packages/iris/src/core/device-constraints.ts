import { resolveDevice } from './resolved-device.js';
import type { ResolvedDevice } from './resolved-device.js';
import { equalityKey } from './constraint-match.js';
import type { Constraint } from './constraints.js';
import type { DeviceSpec } from './device-spec.js';

/** GPU variants known to the scheduler, upper-case as users write them. */
export const KNOWN_GPU_VARIANTS: readonly string[] = Object.freeze([
  'A100', 'A10G', 'B100', 'B200', 'GB200', 'H100', 'H200', 'L4', 'L40', 'L40S', 'RTX4090', 'T4', 'V100',
]);

const KNOWN_GPU_SET = new Set(KNOWN_GPU_VARIANTS);

/**
 * Canonical lower-case GPU variant for a user spec or an `nvidia-smi` product name:
 * `H100` → `h100`, `NVIDIA H100 80GB HBM3` → `h100`, `NVIDIA GeForce RTX 4090` → `rtx4090`.
 *
 * @returns the canonical name, or `undefined` when no known variant appears in `name`
 */
export function canonicalGpuVariant(name: string): string | undefined {
  const tokens = name.toUpperCase().split(/[^A-Z0-9]+/).filter((t) => t.length > 0);
  for (let i = 0; i < tokens.length; i++) {
    const pair = `${tokens[i] ?? ''}${tokens[i + 1] ?? ''}`;
    if (i + 1 < tokens.length && KNOWN_GPU_SET.has(pair)) return pair.toLowerCase();
    const single = tokens[i] ?? '';
    if (KNOWN_GPU_SET.has(single)) return single.toLowerCase();
  }
  return undefined;
}

/**
 * Constraints a job gets from its device at submit: GPU and TPU jobs get
 * `device-type EQ gpu|tpu` and, unless the variant is `auto`, `device-variant EQ <canonical variant>`;
 * CPU jobs get none, so they may land on accelerator workers.
 *
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for an unknown TPU variant
 */
export function deriveDeviceConstraints(device: DeviceSpec): Constraint[] {
  if (device.kind === 'cpu') return [];
  const variant = device.variant.trim();
  if (variant.toLowerCase() === 'auto' || variant === '') return [{ key: 'device-type', op: 'EQ', value: device.kind }];
  return deviceConstraintsOf(resolveDevice(device));
}

/**
 * {@link deriveDeviceConstraints} for a device resolved at the edge: a TPU's `device-variant` is its
 * topology's canonical name, with no second look-up in the table.
 */
export function deviceConstraintsOf(device: ResolvedDevice): Constraint[] {
  if (device.kind === 'cpu') return [];
  const derived: Constraint[] = [{ key: 'device-type', op: 'EQ', value: device.kind }];
  if (device.kind === 'tpu') {
    derived.push({ key: 'device-variant', op: 'EQ', value: device.tpu.name });
    return derived;
  }
  const variant = device.variant.trim().toLowerCase();
  if (variant === 'auto' || variant === '') return derived;
  derived.push({ key: 'device-variant', op: 'EQ', value: canonicalGpuVariant(variant) ?? variant });
  return derived;
}

/** Keys on which a later constraint source replaces earlier ones instead of adding to them. */
export const CANONICAL_CONSTRAINT_KEYS: ReadonlySet<string> = new Set(['device-type', 'device-variant', 'preemptible', 'region', 'zone']);

/** The constraint sources merged at submit. */
export interface ConstraintSources {
  /** From the device (`deriveDeviceConstraints`). */
  readonly derived?: readonly Constraint[];
  /** What the submitter asked for. */
  readonly user?: readonly Constraint[];
  /** The parent job's merged constraints, for child jobs. */
  readonly parent?: readonly Constraint[];
}

function identity(c: Constraint): string {
  return JSON.stringify([
    c.key,
    c.op,
    c.value === undefined ? null : equalityKey(c.value),
    (c.values ?? []).map(equalityKey),
    c.mode ?? 'REQUIRED',
  ]);
}

/**
 * Merges constraint sources. On the canonical keys (`device-type`, `device-variant`,
 * `preemptible`, `region`, `zone`) the job's own sources win: user replaces derived, and either
 * replaces the parent. Other keys are appended and de-duplicated. The result lists derived, then
 * user, then inherited constraints, so Fray's `device-variant IN [...]` replaces the derived `EQ`.
 */
export function mergeConstraints(sources: ConstraintSources): Constraint[] {
  const derived = sources.derived ?? [];
  const user = sources.user ?? [];
  const parent = sources.parent ?? [];
  const userKeys = new Set(user.map((c) => c.key).filter((k) => CANONICAL_CONSTRAINT_KEYS.has(k)));
  const ownKeys = new Set([...derived, ...user].map((c) => c.key).filter((k) => CANONICAL_CONSTRAINT_KEYS.has(k)));
  const ordered = [
    ...derived.filter((c) => !userKeys.has(c.key)),
    ...user,
    ...parent.filter((c) => !ownKeys.has(c.key)),
  ];
  const seen = new Set<string>();
  const merged: Constraint[] = [];
  for (const c of ordered) {
    const id = identity(c);
    if (seen.has(id)) continue;
    seen.add(id);
    merged.push(c);
  }
  return merged;
}
