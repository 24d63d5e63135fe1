/** What a job asks for in devices and gangs: the vocabulary a job is described with, read by the scheduler. */

/** How the tasks of a job are grouped into gangs placed all or nothing. */
export interface Coscheduling {
  /** Worker attribute whose value defines a group, e.g. `tpu-name` or `pool`. */
  readonly groupBy: string;
  /** Tasks per group; 0 = all pending tasks of the job in one group. */
  readonly tasksPerGroup: number;
}

/** The device a task asks for (the scheduler only reads `kind` and `variant`). */
export type DeviceSpec =
  | { readonly kind: 'cpu'; readonly variant?: string }
  | { readonly kind: 'gpu'; readonly variant: string; readonly count?: number }
  | { readonly kind: 'tpu'; readonly variant: string; readonly topology?: string; readonly count?: number };
