/**
 * @packageDocumentation
 * `@marin/pipeline`: Marin's pipeline stages as executor steps — download a Hugging Face repository,
 * turn HTML documents into Markdown, tokenize them into caches in Levanter's own format, then train
 * and evaluate with Levanter. See README.md.
 */
export { PipelineError } from './errors.js';
export type { PipelineErrorCode } from './errors.js';
