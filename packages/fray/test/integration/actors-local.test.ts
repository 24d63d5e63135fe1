// The actor contract on the local backend: each actor is a supervised OS process on this machine.
import { createLocalActorBackend } from '@marin/fray';
import type { FrayLogger } from '@marin/fray';
import { actorContract, pythonEntries } from '../contracts/actor.contract.js';

const quiet: FrayLogger = { info: () => undefined, warn: () => undefined };

actorContract('local', { open: () => createLocalActorBackend({ logger: quiet, killGraceMs: 500 }), readyTimeoutMs: 5_000 });

// The same contract with Python entries: each actor is `python -m fray_actors.serve` from the fixtures' lock.
actorContract('local, Python entries', {
  open: () => createLocalActorBackend({ logger: quiet, killGraceMs: 500 }),
  readyTimeoutMs: 5_000,
  entries: pythonEntries(),
});
