/// <reference path="./turndown-plugin-gfm.d.ts" />
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import { z } from 'zod';
import { PipelineError } from '../../errors.js';

/** How Markdown is written: the `config` field of the transform step (Marin's field names). */
export const MarkdownConfigSchema = z.strictObject({
  /** Start the document with `# {title}` when the page has a title. @default true */
  prepend_title: z.boolean().default(true),
  /** Keep links as `[text](href)`; `false` keeps only their text. @default true */
  include_links: z.boolean().default(true),
  /** Keep images as `![alt](src)`; `false` drops them. @default true */
  include_images: z.boolean().default(true),
  /** `ATX` (`## Heading`) or `SETEXT` (underlined h1/h2). @default "ATX" */
  heading_style: z.enum(['ATX', 'SETEXT']).default('ATX'),
  /** Bullet list marker. @default "*" */
  bullet: z.enum(['*', '-', '+']).default('*'),
  /** Delimiter of bold text. @default "**" */
  strong_delimiter: z.enum(['**', '__']).default('**'),
});

/** The conversion options callers pass (every field optional). */
export type MarkdownOptions = z.input<typeof MarkdownConfigSchema>;
/** The conversion options with defaults applied. */
export type MarkdownConfig = z.output<typeof MarkdownConfigSchema>;

/**
 * Validates conversion options and fills in defaults.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID with zod's issues in `details.issues`
 */
export function parseMarkdownConfig(options: MarkdownOptions): MarkdownConfig {
  const parsed = MarkdownConfigSchema.safeParse(options);
  if (!parsed.success) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'invalid Markdown config', {
      cause: parsed.error,
      details: { issues: parsed.error.issues },
    });
  }
  return parsed.data;
}

/** Turns one HTML page into Markdown; built once per config by {@link createHtmlToMarkdown}. */
export type HtmlToMarkdown = (html: string) => string;

/**
 * Builds the converter of one config: linkedom parses the page, Readability picks the main content
 * (the whole `<body>` when it finds none), Turndown writes Markdown with GFM tables, and the page
 * title is prepended as `# {title}` when `prepend_title` is set. NUL characters are removed.
 *
 * @example
 * const convert = createHtmlToMarkdown(parseMarkdownConfig({}));
 * convert('<title>T</title><p>Hello <a href="/x">x</a></p>'); // '# T\n\nHello [x](/x)'
 */
export function createHtmlToMarkdown(config: MarkdownConfig): HtmlToMarkdown {
  const turndown = createTurndown(config);
  return (html) => {
    // NULs are dropped before parsing too, where an HTML parser would turn them into U+FFFD.
    const { document } = parseHTML(html.replaceAll('\u0000', ''));
    const title = document.title.trim();
    // Readability rewrites the document it reads, so the fallback body is captured first.
    const body = document.body?.innerHTML ?? '';
    // linkedom's Document lacks a few members Readability's typings declare, none of which it uses.
    const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
    const content = article?.content ?? body;
    // Turndown parses the string with its own DOM: linkedom lacks `HTMLTableElement.rows`, which the GFM table rule reads.
    const markdown = turndown.turndown(content);
    const text = config.prepend_title && title !== '' ? `# ${title}\n\n${markdown}` : markdown;
    return text.replaceAll('\u0000', '');
  };
}

function createTurndown(config: MarkdownConfig): TurndownService {
  const turndown = new TurndownService({
    headingStyle: config.heading_style === 'ATX' ? 'atx' : 'setext',
    bulletListMarker: config.bullet,
    strongDelimiter: config.strong_delimiter,
    codeBlockStyle: 'fenced',
  });
  turndown.use(gfm);
  // Rules added later take precedence over Turndown's own `inlineLink` and `image` rules.
  if (!config.include_links) turndown.addRule('linkText', { filter: 'a', replacement: (content) => content });
  if (!config.include_images) turndown.addRule('dropImage', { filter: 'img', replacement: () => '' });
  return turndown;
}
