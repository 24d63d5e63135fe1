/**
 * Lifecycle of one slice: `REQUESTING` (create call in flight) → `BOOTING` (the platform accepted it;
 * no worker registered yet) → `INITIALIZING` (some of its workers registered) → `READY` (all of
 * them). A READY slice that loses a worker is `UNHEALTHY`; deleting goes `STOPPING` → `TERMINATED`.
 * A create that fails is `FAILED`; a slice the platform took back is `PREEMPTED`.
 */
export type SliceState = 'REQUESTING' | 'BOOTING' | 'INITIALIZING' | 'READY' | 'UNHEALTHY' | 'STOPPING' | 'TERMINATED' | 'FAILED' | 'PREEMPTED';

/** States that count toward a group's size. */
export const LIVE_SLICE_STATES: ReadonlySet<SliceState> = new Set<SliceState>(['REQUESTING', 'BOOTING', 'INITIALIZING', 'READY', 'UNHEALTHY']);

/** States of a slice that is on its way up (capacity that will come). */
export const STARTING_SLICE_STATES: ReadonlySet<SliceState> = new Set<SliceState>(['REQUESTING', 'BOOTING', 'INITIALIZING']);
