// Counts one Vitest JSON report (the `--reporter=json` document) for CI's closing line.

/**
 * The counts of one report. A test file that failed without a failed test (its import threw, or a `beforeAll`
 * did, so its tests were never run and the reporter lists them as skipped) counts each of those tests as failed,
 * and at least one failure: a suite whose set-up broke must never read as green or as "skipped".
 * @param {any} report
 * @returns {{ passed: number, failed: number, skipped: number }}
 */
export function countReport(report) {
  let failed = report.numFailedTests ?? 0;
  let skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const file of report.testResults ?? []) {
    const results = file.assertionResults ?? [];
    if (file.status !== 'failed' || results.some((a) => a.status === 'failed')) continue;
    const notRun = results.filter((a) => a.status !== 'passed').length;
    failed += Math.max(1, notRun);
    skipped -= results.filter((a) => a.status === 'skipped' || a.status === 'pending' || a.status === 'todo').length;
  }
  return { passed: report.numPassedTests ?? 0, failed, skipped: Math.max(0, skipped) };
}
