// The task supervisor's one controller message, iris.v1.ReportAttemptRequest, encoded by hand so the
// supervisor stays free of the TypeScript sources. src/worker/task-supervisor.test.ts decodes this
// encoding with the generated code, so the two cannot drift apart.
import { BinaryWriter } from '@bufbuild/protobuf/wire';

/**
 * @param {{ workerId: string, attemptUid: string, state: number, exitCode: number, error: string, finishedAtMs: number }} r
 * @returns {Buffer}
 */
export function encodeReportAttempt(r) {
  const writer = new BinaryWriter();
  writer.uint32(10).string(r.workerId);
  writer.uint32(18).string(r.attemptUid);
  writer.uint32(24).int32(r.state);
  writer.uint32(32).int32(r.exitCode);
  writer.uint32(42).string(r.error);
  writer.uint32(48).int64(r.finishedAtMs);
  return Buffer.from(writer.finish());
}
