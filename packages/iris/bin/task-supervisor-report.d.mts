/** What a task supervisor reports when its worker daemon can no longer do it. */
export interface ReportAttemptFields {
  workerId: string;
  attemptUid: string;
  /** iris.v1.TaskState number: SUCCEEDED 4, FAILED 5, KILLED 6. */
  state: number;
  exitCode: number;
  error: string;
  finishedAtMs: number;
}

/** Encodes iris.v1.ReportAttemptRequest. */
export function encodeReportAttempt(r: ReportAttemptFields): Buffer;
