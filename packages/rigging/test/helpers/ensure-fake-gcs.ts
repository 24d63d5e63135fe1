// Child process: calls ensureFakeGcsBinary() and prints the outcome as JSON.
import { ensureFakeGcsBinary } from '@marin/rigging/testing';

try {
  const path = await ensureFakeGcsBinary();
  process.stdout.write(`${JSON.stringify({ ok: true, path })}\n`);
} catch (err) {
  const e = err as { code?: string; details?: unknown };
  process.stdout.write(`${JSON.stringify({ ok: false, code: e.code, details: e.details })}\n`);
}
