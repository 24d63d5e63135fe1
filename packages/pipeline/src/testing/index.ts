/**
 * @packageDocumentation
 * `@marin/pipeline/testing`: test servers and helpers for code built on the pipeline.
 */
export {};
