import pLimit from 'p-limit';

/**
 * Maps `items` through `fn` with at most `limit` calls in flight (p-limit's queue), keeping the input
 * order in the result. After the first failure no further item starts; calls already in flight are
 * let settle, then the first error is thrown, so no work is left running behind the caller's back.
 *
 * @param limit calls in flight at most; values below 1 count as 1
 * @throws the first error `fn` threw, unchanged
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const run = pLimit(Math.max(1, limit));
  let failed: { error: unknown } | null = null;
  const results = await Promise.all(
    items.map((item, index) =>
      run(async (): Promise<R | undefined> => {
        if (failed !== null) return undefined;
        try {
          return await fn(item, index);
        } catch (error) {
          failed ??= { error };
          return undefined;
        }
      }),
    ),
  );
  if (failed !== null) throw (failed as { error: unknown }).error;
  return results as R[];
}
