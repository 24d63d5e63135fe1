/**
 * @packageDocumentation
 * `@marin/fray`. See README.md.
 */
export { FrayError } from './errors.js';
export type { FrayErrorCode } from './errors.js';
