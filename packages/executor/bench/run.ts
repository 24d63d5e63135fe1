import { benchArtifacts } from './artifacts.bench.js';
import { benchRemote } from './remote.bench.js';
import { benchRunLoop } from './run-loop.bench.js';
import { benchVersioning } from './versioning.bench.js';

benchVersioning();
await benchRunLoop();
await benchRemote();
await benchArtifacts();
