// Deterministic synthetic documents for the tokenize benchmarks (no downloaded or copyrighted text).

/** Deterministic English-like documents (a seeded xorshift), some HTML and Markdown, 1–12 kB each. */
export function generateDocuments(bytes: number): string[] {
  let state = 0x2545f491;
  const next = (n: number): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  const syllables = ['the', 'an', 'ri', 'ver', 'moun', 'tain', 'stra', 'nd', 'o', 'pe', 'ra', 'ti', 'on', 'al', 'ex', 'ple'];
  const words = Array.from({ length: 4000 }, () => Array.from({ length: 1 + next(3) }, () => syllables[next(syllables.length)]).join(''));
  const common = ['the', 'of', 'and', 'to', 'in', 'a', 'is', 'that', 'for', 'with', 'as', 'was', 'on'];
  const sentence = (): string => {
    const n = 5 + next(15);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(next(10) < 4 ? (common[next(common.length)] as string) : next(30) === 0 ? String(next(100_000)) : (words[next(words.length)] as string));
    const s = out.join(' ');
    return `${s[0]?.toUpperCase() ?? ''}${s.slice(1)}${['.', '.', '?', '!', ','][next(5)]}`;
  };
  const docs: string[] = [];
  let total = 0;
  while (total < bytes) {
    const size = 1_000 + next(11_000);
    const kind = next(10);
    let doc = kind === 0 ? '<html><body>\n' : kind === 1 ? '# Notes\n\n' : '';
    while (doc.length < size) {
      if (kind === 0) doc += `<p class="c${next(9)}">${sentence()} <a href="https://example.org/${next(999)}">${sentence()}</a></p>\n`;
      else if (kind === 1) doc += next(3) === 0 ? `- **${words[next(words.length)]}**: ${sentence()}\n` : `${sentence()} ${sentence()}\n\n`;
      else doc += `${sentence()} ${next(6) === 0 ? '\n\n' : ''}`;
    }
    if (kind === 0) doc += '</body></html>';
    docs.push(doc);
    total += Buffer.byteLength(doc);
  }
  return docs;
}
