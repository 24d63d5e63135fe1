import { SeededRandom } from '../synthetic/seeded-random.js';
import { generateSyntheticCorpus } from '../synthetic/synthetic-corpus.js';

/** A labelled training example for a quality classifier. */
export interface LabelledExample {
  text: string;
  label: string;
}

const SPAM = ['click', 'here', 'BUY', 'NOW', 'free', '$$$', 'WIN', 'cheap', '!!!', 'http://spam.example', 'subscribe', 'LIMITED', 'offer', '>>>', 'casino', 'xxx'];

/**
 * Seeded synthetic examples for a tiny quality classifier: `hq` documents are the synthetic corpus's prose, `lq`
 * documents are the same vocabulary broken up by spam tokens, shouting and link runs. Nothing is downloaded; the
 * tests' shipped model is trained on these.
 */
export function generateQualityExamples(options: { seed?: number; count?: number; vocabularySize?: number } = {}): LabelledExample[] {
  const seed = options.seed ?? 1;
  const count = options.count ?? 2000;
  const rng = new SeededRandom(seed ^ 0x9a11);
  const prose = generateSyntheticCorpus({ seed, documents: count, exactDuplicateRate: 0, nearDuplicateRate: 0, vocabularySize: options.vocabularySize ?? 2000, wordsPerDocument: [20, 120] });
  return prose.map((d, i) => {
    if (i % 2 === 0) return { text: d.text, label: 'hq' };
    const words = d.text.split(/\s+/);
    const out: string[] = [];
    for (const w of words) {
      const r = rng.next();
      if (r < 0.35) out.push(rng.pick(SPAM));
      out.push(r < 0.5 ? w.toUpperCase() : w);
    }
    return { text: out.join(' '), label: 'lq' };
  });
}
