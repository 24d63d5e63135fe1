import { z } from 'zod';

/** How progress is shown: `auto` (live on a TTY outside CI, plain otherwise), `live` or `plain`. */
export const ProgressModeSchema = z.enum(['auto', 'live', 'plain']);

/** A progress mode accepted by `run()` and `--progress`. */
export type ProgressMode = z.output<typeof ProgressModeSchema>;
