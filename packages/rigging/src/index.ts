/**
 * @packageDocumentation
 * `@marin/rigging`. See README.md.
 */
export { CodedError, hasBrand } from './coded-error.js';
export type { CodedErrorOptions } from './coded-error.js';
export { RiggingError } from './errors.js';
export type { RiggingErrorCode } from './errors.js';
