/**
 * Writes the shipped offline validation suite (`assets/validation/offline/<set>/val/val.jsonl.gz`, laid out as
 * Paloma is on the hub): the quickstart's 12 validation pages as plain text (HTML tags, scripts, styles, the
 * head and navigation removed), the first six as `gazetteer`, the last six as `chronicle`. It reads only the
 * committed quickstart fixture, so rerunning leaves the committed files byte-identical (gzip header mtime 0).
 *
 * Run: node --conditions=@marin/source --import tsx packages/pipeline/scripts/make-offline-validation.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';

const ASSETS = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets');
const source = join(ASSETS, 'quickstart', 'validation', 'data-00000-of-00001.jsonl.gz');
const pages = gunzipSync(readFileSync(source))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { text: string });

function plainText(html: string): string {
  return html
    .replace(/<(script|style|nav|head)[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n')
    .trim();
}

for (const [set, docs] of [['gazetteer', pages.slice(0, 6)], ['chronicle', pages.slice(6)]] as const) {
  const dir = join(ASSETS, 'validation', 'offline', set, 'val');
  mkdirSync(dir, { recursive: true });
  const lines = docs.map((doc, i) => JSON.stringify({ text: plainText(doc.text), id: `${set}-${i}`, source: set }));
  writeFileSync(join(dir, 'val.jsonl.gz'), gzipSync(`${lines.join('\n')}\n`));
}
