/**
 * @packageDocumentation
 * `@marin/iris`. See README.md.
 */
export { IrisError } from './errors.js';
export type { IrisErrorCode } from './errors.js';
