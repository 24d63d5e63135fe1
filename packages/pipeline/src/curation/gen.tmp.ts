import { writeFileSync } from 'node:fs';
import { generateSyntheticCorpus } from './synthetic/synthetic-corpus.js';
const docs = generateSyntheticCorpus({ seed: 7, documents: Number(process.argv[2]) });
writeFileSync(process.argv[3]!, docs.map(d => JSON.stringify({ id: d.id, text: d.text })).join('\n') + '\n');
