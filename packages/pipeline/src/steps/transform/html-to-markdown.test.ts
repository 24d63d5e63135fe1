import { describe, expect, it } from 'vitest';
import { createHtmlToMarkdown, parseMarkdownConfig } from './html-to-markdown.js';
import type { MarkdownOptions } from './html-to-markdown.js';

const PAGE = `<!DOCTYPE html><html><head><title>Harbor Guide</title></head><body>
<nav><a href="/">Home</a></nav>
<article>
<h2>Boats</h2>
<p>The harbor keeps <strong>forty boats</strong>, and the <a href="https://example.org/ferry">ferry</a> leaves at dawn, every day, all year.</p>
<p><img src="https://example.org/boat.png" alt="a boat"> The fishers mend nets, sing songs, and trade salt along the quay before noon.</p>
<ul><li>nets</li><li>sails</li></ul>
<table><thead><tr><th>Year</th><th>Boats</th></tr></thead><tbody><tr><td>1900</td><td>12</td></tr><tr><td>2000</td><td>40</td></tr></tbody></table>
</article></body></html>`;

const convert = (html: string, options: MarkdownOptions = {}): string => createHtmlToMarkdown(parseMarkdownConfig(options))(html);

describe('createHtmlToMarkdown()', () => {
  it('prepends the page title as an ATX heading', () => {
    expect(convert(PAGE).startsWith('# Harbor Guide\n\n')).toBe(true);
  });

  it('leaves the title out without prepend_title, or when the page has none', () => {
    expect(convert(PAGE, { prepend_title: false })).not.toContain('Harbor Guide');
    expect(convert('<html><body><p>No title here.</p></body></html>')).toBe('No title here.');
  });

  it('keeps links, images, bold text, ATX headings and * bullets', () => {
    const md = convert(PAGE);
    expect(md).toContain('[ferry](https://example.org/ferry)');
    expect(md).toContain('![a boat](https://example.org/boat.png)');
    expect(md).toContain('**forty boats**');
    expect(md).toContain('## Boats');
    expect(md).toMatch(/^\*\s+nets$/m);
  });

  it('writes a table with a heading row as a GFM table', () => {
    expect(convert(PAGE)).toContain('| Year | Boats |\n| --- | --- |\n| 1900 | 12 |\n| 2000 | 40 |');
  });

  it('keeps only the text of links without include_links and drops images without include_images', () => {
    const md = convert(PAGE, { include_links: false, include_images: false });
    expect(md).toContain('the ferry leaves');
    expect(md).not.toContain('](');
  });

  it('honours bullet, strong_delimiter and heading_style', () => {
    const md = convert(PAGE, { bullet: '-', strong_delimiter: '__', heading_style: 'SETEXT', prepend_title: false });
    expect(md).toMatch(/^-\s+nets$/m);
    expect(md).toContain('__forty boats__');
    expect(md).toContain('Boats\n-----');
  });

  it('strips NUL characters from the title and the text', () => {
    const md = convert('<html><head><title>A\u0000B</title></head><body><p>x\u0000y and more words</p></body></html>');
    expect(md).not.toContain('\u0000');
    expect(md).not.toContain('\uFFFD');
    expect(md).toContain('# AB');
    expect(md).toContain('xy and more words');
  });

  it('converts the whole body when Readability finds no article', () => {
    expect(convert('<html><body><ul><li>only</li><li>a list</li></ul></body></html>')).toMatch(/^\*\s+only\n\*\s+a list$/);
  });
});

describe('parseMarkdownConfig()', () => {
  it('fills in the defaults', () => {
    expect(parseMarkdownConfig({})).toEqual({
      prepend_title: true,
      include_links: true,
      include_images: true,
      heading_style: 'ATX',
      bullet: '*',
      strong_delimiter: '**',
    });
  });

  it('rejects an unknown field or value with PIPELINE_CONFIG_INVALID', () => {
    expect(() => parseMarkdownConfig({ bullet: '#' as '*' })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
    expect(() => parseMarkdownConfig({ typo: true } as MarkdownOptions)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });
});
