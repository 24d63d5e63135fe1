import { SeededRandom } from './seeded-random.js';
import { generateSyntheticCorpus } from './synthetic-corpus.js';

/** A training corpus with eval text planted in some documents, and the eval records themselves. */
export interface ContaminatedCorpus {
  eval: { id: string; text: string }[];
  docs: { id: string; text: string; planted: 'none' | 'whole' | 'partial' | 'short' }[];
}

/**
 * A seeded decontamination test corpus: eval records (long passages and short questions), and training documents of
 * which about `rate` carry an eval passage as a paragraph — whole, a part of it, or a short question.
 */
export function generateContaminatedCorpus(options: { seed?: number; documents?: number; evalRecords?: number; rate?: number } = {}): ContaminatedCorpus {
  const seed = options.seed ?? 1;
  const rng = new SeededRandom(seed ^ 0xdeca);
  const evalDocs = generateSyntheticCorpus({ seed: seed + 1, documents: options.evalRecords ?? 60, exactDuplicateRate: 0, nearDuplicateRate: 0, wordsPerDocument: [4, 90], wordsPerParagraph: 1000 });
  const evalRecords = evalDocs.map((d, i) => ({ id: `eval-${i.toString().padStart(4, '0')}`, text: d.text }));
  const training = generateSyntheticCorpus({ seed: seed + 2, documents: options.documents ?? 500, exactDuplicateRate: 0, nearDuplicateRate: 0 });
  const rate = options.rate ?? 0.1;
  const docs = training.map((d) => {
    if (rng.next() >= rate) return { id: d.id, text: d.text, planted: 'none' as const };
    const source = rng.pick(evalRecords).text;
    const tokens = source.split(' ');
    let planted: 'whole' | 'partial' | 'short';
    let passage: string;
    if (tokens.length < 13) {
      planted = 'short';
      passage = source;
    } else if (rng.next() < 0.5) {
      planted = 'whole';
      passage = source;
    } else {
      planted = 'partial';
      const start = rng.int(0, Math.floor(tokens.length / 2));
      passage = tokens.slice(start, start + rng.int(13, tokens.length - start)).join(' ');
    }
    const paragraphs = d.text.split('\n\n');
    paragraphs.splice(rng.int(0, paragraphs.length), 0, passage);
    return { id: d.id, text: paragraphs.join('\n\n'), planted };
  });
  return { eval: evalRecords, docs };
}
