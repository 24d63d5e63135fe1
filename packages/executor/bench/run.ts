import { benchRunLoop } from './run-loop.bench.js';
import { benchVersioning } from './versioning.bench.js';

benchVersioning();
await benchRunLoop();
