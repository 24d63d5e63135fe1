import { benchVersioning } from './versioning.bench.js';

benchVersioning();
