/**
 * Test helpers of `@marin/iris`, published as `@marin/iris/testing`.
 */
export {};
