/**
 * Writes the quickstart fixture: synthetic HTML pages about an invented archipelago as Dolma records
 * (`assets/quickstart/{train,validation}/*.jsonl.gz`) and multiple-choice questions about the same
 * facts (`assets/eval/tiny_mc.jsonl`). Everything comes from a seeded PRNG and the word lists below,
 * so the output is license-free and the same on every run; gzip is written with a fixed header
 * (mtime 0, no file name), so rerunning leaves the committed files byte-identical.
 *
 * Run: node --conditions=@marin/source --import tsx packages/pipeline/scripts/make-quickstart-data.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ASSETS = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets');
const SEED = 20240601;
const TRAIN_DOCS = 48;
const VALIDATION_DOCS = 12;
const TRAIN_FILES = 2;
const MC_ITEMS = 20;

/** mulberry32: small, fast and the same in every JavaScript engine. */
function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = createRandom(SEED);
const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
const shuffle = <T>(xs: readonly T[]): T[] => {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
};
const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

const ONSETS = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'br', 'dr', 'tr', 'st', 'gl', 'th', 'sh'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io'];
const CODAS = ['', '', 'n', 'r', 'l', 's', 'th', 'nd', 'rn', 'st'];

function inventName(syllables: number): string {
  let s = '';
  for (let i = 0; i < syllables; i++) s += pick(ONSETS) + pick(VOWELS) + (i === syllables - 1 ? pick(CODAS) : '');
  return capitalize(s);
}

function uniqueNames(count: number, used: Set<string>): string[] {
  const out: string[] = [];
  while (out.length < count) {
    const name = inventName(int(2, 3));
    if (name.length < 5 || used.has(name)) continue;
    used.add(name);
    out.push(name);
  }
  return out;
}

const used = new Set<string>();
const REGIONS = uniqueNames(6, used);
const RIVERS = uniqueNames(10, used);
const CRAFTS = ['salt', 'copper bells', 'blue glass', 'wool blankets', 'cedar boats', 'honey', 'paper lanterns', 'clay pipes', 'linen sails', 'dried figs', 'silver thread', 'river pearls'];
const ANIMALS = ['heron', 'otter', 'fox', 'stag', 'owl', 'hare', 'crane', 'badger', 'falcon', 'seal'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const COLORS = ['green', 'amber', 'crimson', 'white', 'violet', 'ochre', 'grey', 'teal'];

interface Town {
  name: string;
  slug: string;
  region: string;
  river: string;
  craft: string;
  animal: string;
  festivalMonth: string;
  color: string;
  founded: number;
  population: number;
}

const TOWNS: Town[] = uniqueNames(TRAIN_DOCS + VALIDATION_DOCS, used).map((name) => ({
  name,
  slug: name.toLowerCase(),
  region: pick(REGIONS),
  river: pick(RIVERS),
  craft: pick(CRAFTS),
  animal: pick(ANIMALS),
  festivalMonth: pick(MONTHS),
  color: pick(COLORS),
  founded: int(1120, 1890),
  population: int(8, 420) * 100,
}));

const ADJECTIVES = ['old', 'quiet', 'busy', 'narrow', 'wide', 'bright', 'steep', 'gentle', 'famous', 'small', 'proud', 'patient', 'careful', 'early', 'late', 'warm', 'cold', 'simple', 'painted', 'wooden'];
const NOUNS = ['market', 'harbor', 'bridge', 'square', 'workshop', 'school', 'library', 'mill', 'orchard', 'road', 'tower', 'garden', 'council', 'ferry', 'guild', 'chapel', 'archive', 'lighthouse', 'well', 'quarry'];
const PEOPLE = ['farmers', 'fishers', 'weavers', 'teachers', 'merchants', 'builders', 'children', 'travelers', 'elders', 'musicians', 'sailors', 'potters'];
const VERBS = ['gather', 'trade', 'sing', 'repair boats', 'tell stories', 'meet', 'walk', 'argue politely', 'share bread', 'keep records', 'plant trees', 'paint walls'];
const TIMES = ['in the morning', 'after the rains', 'every spring', 'on market days', 'at dusk', 'during the long winter', 'before the harvest', 'when the tide turns'];
const CONNECTORS = ['Meanwhile', 'In addition', 'For this reason', 'Even so', 'Over the years', 'As a rule', 'By tradition', 'Today'];

function sentence(t: Town): string {
  const templates: (() => string)[] = [
    () => `The ${pick(ADJECTIVES)} ${pick(NOUNS)} of ${t.name} stands near the ${t.river} River, where ${pick(PEOPLE)} ${pick(VERBS)} ${pick(TIMES)}.`,
    () => `${pick(CONNECTORS)}, the ${pick(PEOPLE)} of ${t.name} ${pick(VERBS)} by the ${pick(ADJECTIVES)} ${pick(NOUNS)}.`,
    () => `Visitors often say that ${t.name} is known for its ${t.craft}, which the ${pick(PEOPLE)} carry to the ${pick(NOUNS)} ${pick(TIMES)}.`,
    () => `The town lies in the ${t.region} region, and its ${pick(ADJECTIVES)} ${pick(NOUNS)} looks over the ${t.river} valley.`,
    () => `Each year in ${t.festivalMonth}, the festival of the ${t.animal} fills the ${pick(NOUNS)} with ${pick(PEOPLE)} and ${pick(COLORS)} flags.`,
    () => `Records in the ${pick(NOUNS)} say that ${t.name} was founded in ${t.founded} by ${pick(PEOPLE)} from the ${pick(REGIONS)} coast.`,
    () => `The ${t.color} banner of ${t.name} shows a ${t.animal}, and the ${pick(PEOPLE)} ${pick(VERBS)} beneath it ${pick(TIMES)}.`,
    () => `About ${t.population.toLocaleString('en-US')} people live in ${t.name}, and most of them ${pick(VERBS)} ${pick(TIMES)}.`,
    () => `A ${pick(ADJECTIVES)} path leads from the ${pick(NOUNS)} to the ${pick(NOUNS)}, and ${pick(PEOPLE)} ${pick(VERBS)} along the way.`,
    () => `${capitalize(pick(PEOPLE))} and ${pick(PEOPLE)} ${pick(VERBS)} together, because the ${pick(NOUNS)} is ${pick(ADJECTIVES)} and the ${pick(NOUNS)} is ${pick(ADJECTIVES)}.`,
  ];
  return pick(templates)();
}

function paragraph(t: Town, sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(t)).join(' ');
}

function link(t: Town): string {
  return `<a href="https://quickstart.example/towns/${t.slug}">${t.name}</a>`;
}

function page(t: Town): string {
  const neighbours = shuffle(TOWNS.filter((o) => o !== t && o.region === t.region)).slice(0, 3);
  const section = (heading: string, paragraphs: number): string =>
    `<h2>${heading}</h2>\n${Array.from({ length: paragraphs }, () => `<p>${paragraph(t, int(5, 7))}</p>`).join('\n')}`;
  const years = [t.founded + 100, t.founded + 200, 1900, 1950, 2000].filter((y, i, a) => y <= 2000 && a.indexOf(y) === i).sort((a, b) => a - b);
  const rows = years
    .map((y, i) => `<tr><td>${y}</td><td>${Math.round((t.population * (i + 1)) / years.length).toLocaleString('en-US')}</td><td>${int(2, 40)}</td></tr>`)
    .join('\n');
  const body = [
    `<h1>${t.name}</h1>`,
    `<p><strong>${t.name}</strong> is a ${pick(ADJECTIVES)} town of the ${t.region} region on the ${t.river} River, known for its ${t.craft}. ${paragraph(t, 4)}</p>`,
    section('History', 3),
    `<h3>Timeline</h3>\n<ul>\n<li>${t.founded}: ${t.name} is founded on the ${t.river} River.</li>\n<li>${t.founded + int(20, 90)}: the first ${pick(NOUNS)} is built.</li>\n<li>${t.founded + int(100, 180)}: the ${t.craft} trade reaches the ${pick(REGIONS)} coast.</li>\n</ul>`,
    section('Economy', 2),
    `<table>\n<thead><tr><th>Year</th><th>Population</th><th>Boats</th></tr></thead>\n<tbody>\n${rows}\n</tbody>\n</table>`,
    section('Culture', 2),
    `<p>Neighbouring towns: ${neighbours.map(link).join(', ') || 'none recorded'}. ${paragraph(t, 3)}</p>`,
  ].join('\n');
  return [
    '<!DOCTYPE html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${t.name} - Quickstart Gazetteer</title></head>`,
    '<body>',
    `<nav><a href="https://quickstart.example/">Home</a> | <a href="https://quickstart.example/regions/${t.region.toLowerCase()}">${t.region}</a></nav>`,
    `<article>\n${body}\n</article>`,
    '<footer><p>Quickstart Gazetteer: invented places for tests.</p></footer>',
    '</body></html>',
  ].join('\n');
}

function record(t: Town, index: number): Record<string, unknown> {
  return {
    id: `quickstart-${String(index).padStart(4, '0')}`,
    text: page(t),
    source: 'quickstart',
    added: new Date(Date.UTC(2024, 0, 1 + index)).toISOString(),
    metadata: { fineweb_metadata: { url: `https://quickstart.example/towns/${t.slug}`, language: 'en', dump: 'quickstart-synthetic' } },
  };
}

/** gzip with a fixed header: zlib already writes mtime 0 and no name; the OS byte is pinned to Unix (3). */
function gzipFixed(text: string): Buffer {
  const out = gzipSync(Buffer.from(text, 'utf8'), { level: 9 });
  out[9] = 3;
  return out;
}

function writeShard(path: string, records: Record<string, unknown>[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, gzipFixed(records.map((r) => `${JSON.stringify(r)}\n`).join('')));
}

const shard = (i: number, n: number): string => `data-${String(i).padStart(5, '0')}-of-${String(n).padStart(5, '0')}.jsonl.gz`;

const records = TOWNS.map(record);
const train = records.slice(0, TRAIN_DOCS);
const perFile = Math.ceil(TRAIN_DOCS / TRAIN_FILES);
for (let i = 0; i < TRAIN_FILES; i++) {
  writeShard(join(ASSETS, 'quickstart', 'train', shard(i, TRAIN_FILES)), train.slice(i * perFile, (i + 1) * perFile));
}
writeShard(join(ASSETS, 'quickstart', 'validation', shard(0, 1)), records.slice(TRAIN_DOCS));

type Fact = { ask: (t: Town) => string; answer: (t: Town) => string; pool: readonly string[] };
const FACTS: Fact[] = [
  { ask: (t) => `Which river flows past ${t.name}?`, answer: (t) => `the ${t.river} River`, pool: RIVERS.map((r) => `the ${r} River`) },
  { ask: (t) => `What is ${t.name} known for?`, answer: (t) => t.craft, pool: CRAFTS },
  { ask: (t) => `Which animal is on the banner of ${t.name}?`, answer: (t) => `a ${t.animal}`, pool: ANIMALS.map((a) => `a ${a}`) },
  { ask: (t) => `In which month is the festival of ${t.name}?`, answer: (t) => t.festivalMonth, pool: MONTHS },
  { ask: (t) => `In which region is ${t.name}?`, answer: (t) => `the ${t.region} region`, pool: REGIONS.map((r) => `the ${r} region`) },
];

const mc = shuffle(TOWNS.slice(0, TRAIN_DOCS))
  .slice(0, MC_ITEMS)
  .map((t, i) => {
    const fact = FACTS[i % FACTS.length] as Fact;
    const answer = fact.answer(t);
    const choices = shuffle([answer, ...shuffle(fact.pool.filter((c) => c !== answer)).slice(0, 3)]);
    return { query: fact.ask(t), choices, gold: choices.indexOf(answer) };
  });
mkdirSync(join(ASSETS, 'eval'), { recursive: true });
writeFileSync(join(ASSETS, 'eval', 'tiny_mc.jsonl'), mc.map((item) => `${JSON.stringify(item)}\n`).join(''));

process.stdout.write(`wrote ${records.length} documents and ${mc.length} questions under ${ASSETS}\n`);
