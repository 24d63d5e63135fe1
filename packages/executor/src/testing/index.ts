/**
 * Test helpers of `@marin/executor`, published as `@marin/executor/testing`.
 */
export {};
