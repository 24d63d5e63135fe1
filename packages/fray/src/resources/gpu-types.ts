/** The GPU variants `ResourceConfig.withGpu` accepts (Marin's list); `auto` lets the scheduler pick. */
export const GPU_TYPES = Object.freeze([
  'A10',
  'A100-40G',
  'A100-80G',
  'A10G',
  'B100',
  'H100',
  'H200',
  'L4',
  'RTX3090',
  'T4',
  'V100',
  'auto',
] as const);

/** One of {@link GPU_TYPES}. */
export type GpuType = (typeof GPU_TYPES)[number];

/** True when `value` is a known GPU variant (exact spelling). */
export function isGpuType(value: unknown): value is GpuType {
  return typeof value === 'string' && (GPU_TYPES as readonly string[]).includes(value);
}
