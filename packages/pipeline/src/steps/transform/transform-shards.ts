import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { currentJobContext } from '@marin/fray';
import { atomicRename, createWriteStream, exists } from '@marin/rigging';
import { z } from 'zod';
import { PipelineError } from '../../errors.js';
import { readFileRecords } from '../../formats/record-reader.js';
import { asHtmlRecord, toMarkdownRecord } from './document-record.js';
import { MarkdownConfigSchema, createHtmlToMarkdown } from './html-to-markdown.js';
import type { HtmlToMarkdown } from './html-to-markdown.js';

/** The JSON arguments of {@link transformShards}: the shards of one part and how to convert them. */
export const TransformShardsArgsSchema = z.strictObject({
  /** Input file and output shard URLs, processed in this order. */
  shards: z.array(z.strictObject({ input: z.string().min(1), output: z.string().min(1) })),
  /** How the main content is found; only Readability exists. */
  extract_method: z.literal('readability'),
  /** How Markdown is written. */
  config: MarkdownConfigSchema,
});

/** What callers (and Fray jobs, as JSON) pass to {@link transformShards}. */
export type TransformShardsArgs = z.input<typeof TransformShardsArgsSchema>;

/**
 * Converts a group of HTML record files (JSON lines plain / `.gz` / `.zst`, or parquet) into Markdown shards, one output per input with lines in
 * input order: the worker of the transform step, called in-process or as the `transformShards` export
 * of `@marin/pipeline` by a Fray job. Each shard streams (gunzip, lines, convert, gzip) into a temp
 * sibling that is renamed onto the output, so a shard is either complete or absent; an existing
 * output is skipped, which makes a retried part resume.
 *
 * @param signal checked between records; inside a Fray job it defaults to the job's own signal
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for malformed `args`
 * @throws {PipelineError} PIPELINE_INPUT_INVALID for a line that is not a JSON object, a record without
 *   `text`, or a truncated or corrupt gzip stream (`details.path`, and `details.line` when known)
 */
export async function transformShards(args: TransformShardsArgs, signal?: AbortSignal): Promise<void> {
  const parsed = TransformShardsArgsSchema.safeParse(args);
  if (!parsed.success) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'invalid transformShards arguments', {
      cause: parsed.error,
      details: { issues: parsed.error.issues },
    });
  }
  const abort = signal ?? currentJobContext()?.signal ?? new AbortController().signal;
  const convert = createHtmlToMarkdown(parsed.data.config);
  for (const { input, output } of parsed.data.shards) {
    abort.throwIfAborted();
    if (await exists(output)) continue;
    await transformShard(input, output, convert, abort);
  }
}

async function transformShard(input: string, output: string, convert: HtmlToMarkdown, signal: AbortSignal): Promise<void> {
  await atomicRename(output, async (tmp) => {
    const sink = await createWriteStream(tmp);
    try {
      await pipeline(markdownLines(input, convert, signal), createGzip(), sink);
    } catch (err) {
      // pipeline() settles before a destroyed sink has removed its own staging file; wait for it.
      if (!sink.closed) await new Promise((resolve) => sink.once('close', resolve));
      throw err;
    }
  });
}

/** The output lines of one input file, in input order. */
async function* markdownLines(input: string, convert: HtmlToMarkdown, signal: AbortSignal): AsyncGenerator<string> {
  for await (const { record, line } of readFileRecords(input, { signal })) {
    yield `${JSON.stringify(toMarkdownRecord(asHtmlRecord(record, { path: input, line }), convert), bigintAsNumber)}\n`;
  }
}

// Parquet INT64 values arrive as bigint, which JSON cannot hold; as in pyarrow's to_pylist → json, they become numbers.
function bigintAsNumber(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? Number(value) : value;
}
