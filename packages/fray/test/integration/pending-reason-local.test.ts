// The pending-reason contract on the local backend: with one slot, a second job waits for the first.
import { createLocalClient } from '@marin/fray';
import type { FrayLogger } from '@marin/fray';
import { pendingReasonContract } from '../contracts/pending-reason.contract.js';

const quiet: FrayLogger = { info: () => undefined, warn: () => undefined };

pendingReasonContract('local', { open: () => createLocalClient({ logger: quiet, maxConcurrency: 1, killGraceMs: 500 }) });
