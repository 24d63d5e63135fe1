import { PipelineError } from '../../errors.js';
import type { HtmlToMarkdown } from './html-to-markdown.js';

/** A Dolma input record as read from a line: `text` is present, the rest is passed through. */
export interface HtmlRecord {
  readonly id?: unknown;
  readonly source?: unknown;
  readonly text: unknown;
  readonly metadata?: unknown;
  readonly [key: string]: unknown;
}

/** An output record, keys in this order; `error` replaces `text` when the conversion failed. */
export type MarkdownRecord =
  | { id: unknown; source: unknown; format: 'md'; metadata: unknown; text: string }
  | { id: unknown; source: unknown; format: 'md'; metadata: unknown; error: string };

/** Where a line came from, for error messages and details. */
export interface LineLocation {
  /** The input file's URL. */
  readonly path: string;
  /** 1-based line number. */
  readonly line: number;
}

/**
 * Checks that a parsed JSON-lines record has the `text` key (its value may be anything: a value that
 * is not a string is recorded later as a conversion error).
 *
 * @throws {PipelineError} PIPELINE_INPUT_INVALID if the record has no `text` key
 */
export function asHtmlRecord(record: Record<string, unknown>, where: LineLocation): HtmlRecord {
  if (!Object.hasOwn(record, 'text')) {
    throw new PipelineError('PIPELINE_INPUT_INVALID', `line ${where.line} of "${where.path}" has no "text" key`, {
      details: { path: where.path, line: where.line },
    });
  }
  return record as HtmlRecord;
}

/**
 * Converts one record: `{ id, source, format: "md", metadata, text }`, with `metadata` taken flat from
 * `metadata.fineweb_metadata` when present. A conversion failure is kept as `error` instead of `text`,
 * so failures are recorded rather than dropped.
 */
export function toMarkdownRecord(record: HtmlRecord, convert: HtmlToMarkdown): MarkdownRecord {
  const head = { id: record.id ?? null, source: record.source ?? null, format: 'md' as const, metadata: metadataOf(record.metadata) };
  try {
    if (typeof record.text !== 'string') throw new TypeError(`"text" is ${record.text === null ? 'null' : typeof record.text}, not a string`);
    return { ...head, text: convert(record.text) };
  } catch (err) {
    return { ...head, error: err instanceof Error ? err.message : String(err) };
  }
}

function metadataOf(metadata: unknown): unknown {
  if (typeof metadata !== 'object' || metadata === null) return metadata ?? {};
  const fineweb = (metadata as Record<string, unknown>)['fineweb_metadata'];
  return fineweb ?? metadata;
}
