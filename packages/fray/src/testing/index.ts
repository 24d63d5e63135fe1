/**
 * Test helpers of `@marin/fray`, published as `@marin/fray/testing`.
 */
export {};
