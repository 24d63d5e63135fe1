import { describe, expect, it } from 'vitest';
import { asHtmlRecord, toMarkdownRecord } from './document-record.js';

const where = { path: 'memory://in/a.jsonl.gz', line: 7 };
const upper = (html: string): string => html.toUpperCase();

describe('toMarkdownRecord()', () => {
  it('writes id, source, format, metadata and text in this order', () => {
    const out = toMarkdownRecord({ text: '<p>x</p>', metadata: { a: 1 }, source: 's', id: 'd1', added: '2024-01-01' }, upper);
    expect(Object.keys(out)).toEqual(['id', 'source', 'format', 'metadata', 'text']);
    expect(out).toEqual({ id: 'd1', source: 's', format: 'md', metadata: { a: 1 }, text: '<P>X</P>' });
  });

  it('takes metadata flat from metadata.fineweb_metadata when present', () => {
    const out = toMarkdownRecord({ id: 'd', source: 's', text: '', metadata: { fineweb_metadata: { url: 'https://a.example/x' }, other: 1 } }, upper);
    expect(out.metadata).toEqual({ url: 'https://a.example/x' });
  });

  it('writes empty metadata for a record without any', () => {
    expect(toMarkdownRecord({ id: 'd', source: 's', text: '' }, upper).metadata).toEqual({});
  });

  it('keeps a record whose conversion fails, with error instead of text', () => {
    const out = toMarkdownRecord({ id: 'd', source: 's', text: '<p>x</p>' }, () => {
      throw new Error('boom');
    });
    expect(Object.keys(out)).toEqual(['id', 'source', 'format', 'metadata', 'error']);
    expect(out).toMatchObject({ id: 'd', error: 'boom' });
  });

  it('records a non-string text as an error', () => {
    const out = toMarkdownRecord({ id: 'd', source: 's', text: 42 }, upper);
    expect(out).toHaveProperty('error');
    expect(out).not.toHaveProperty('text');
  });
});

describe('asHtmlRecord()', () => {
  it('returns a record that has a text key', () => {
    expect(asHtmlRecord({ id: 'd', text: null }, where)).toEqual({ id: 'd', text: null });
  });

  it('rejects a record without a text key with PIPELINE_INPUT_INVALID naming file and line', () => {
    expect(() => asHtmlRecord({ id: 'd', html: '<p>x</p>' }, where)).toThrow(
      expect.objectContaining({ code: 'PIPELINE_INPUT_INVALID', details: { path: where.path, line: 7 } }),
    );
  });
});
