import { describe, expect, it } from 'vitest';
import { addEvalRecord, scoreDocument } from '../../src/curation/decon/decon-marker.js';
import { ExactHashSet } from '../../src/curation/decon/hash-membership.js';
import { NGramConfigSchema } from '../../src/curation/decon/ngram-features.js';
import { generateContaminatedCorpus } from '../../src/curation/synthetic/contaminated-corpus.js';
import { runCurationPython } from '../helpers/curation-python.js';

describe('decontamination against the Python reference (Marin’s rules, exact set of BLAKE2b hashes)', () => {
  for (const ngramInput of [{}, { ngram_length: 8, stride: 1, overlap_threshold: 0.3 }]) {
    it(`gives the same max_overlap, verdict and hit count for every document (${JSON.stringify(ngramInput)})`, async () => {
      const ngram = NGramConfigSchema.parse(ngramInput);
      const corpus = generateContaminatedCorpus({ seed: 5, documents: 400, rate: 0.25 });
      const filter = new ExactHashSet();
      for (const e of corpus.eval) addEvalRecord(filter, e.text, e.id, ngram);
      const ours = corpus.docs.map((d) => scoreDocument(d.id, d.text, filter, ngram));
      const out = JSON.parse(await runCurationPython('decon_reference.py', [], JSON.stringify({ ngram, eval: corpus.eval, docs: corpus.docs }))) as {
        rows: { id: string; contaminated: boolean; max_overlap: number; matched: number }[];
      };
      expect(out.rows.map((r) => ({ id: r.id, contaminated: r.contaminated, max_overlap: r.max_overlap, matched: r.matched }))).toEqual(
        ours.map((r) => ({ id: r.id, contaminated: r.contaminated, max_overlap: r.max_overlap, matched: r.matched_hashes.length })),
      );
      // The planted passages are found: every whole or short plant is contaminated, clean documents are not.
      for (const [i, d] of corpus.docs.entries()) {
        if (d.planted === 'whole' || d.planted === 'short') expect(ours[i]?.contaminated).toBe(true);
        if (d.planted === 'none') expect(ours[i]?.max_overlap).toBe(0);
      }
      expect(ours.filter((r) => r.contaminated).length).toBeGreaterThan(50);
    }, 60_000);
  }
});
