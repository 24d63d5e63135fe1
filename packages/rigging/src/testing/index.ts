/**
 * Test helpers of `@marin/rigging`, published as `@marin/rigging/testing`.
 */
export {};
