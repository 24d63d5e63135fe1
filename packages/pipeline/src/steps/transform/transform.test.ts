import { gunzipSync, gzipSync } from 'node:zlib';
import { glob, readBytes, resetMemoryFilesystem, writeBytes } from '@marin/rigging';
import { afterEach, describe, expect, it } from 'vitest';
import { htmlToMd } from './transform.js';

const page = (title: string): string => `<html><head><title>${title}</title></head><body><p>About ${title}, with words.</p></body></html>`;
const gz = (records: object[]): Buffer => gzipSync(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
const readRecords = async (url: string): Promise<Record<string, unknown>[]> =>
  gunzipSync(await readBytes(url)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

afterEach(() => resetMemoryFilesystem());

describe('htmlToMd()', () => {
  it('writes one shard per input, in sorted input order, skipping dot-files', async () => {
    await writeBytes('memory://in/b/2.jsonl.gz', gz([{ id: 'b', source: 's', text: page('B') }]));
    await writeBytes('memory://in/a.jsonl.gz', gz([{ id: 'a1', source: 's', text: page('A1') }, { id: 'a2', source: 's', text: page('A2') }]));
    await writeBytes('memory://in/.hidden.jsonl.gz', gz([{ id: 'h', source: 's', text: page('H') }]));
    await writeBytes('memory://in/notes.txt', Buffer.from('not an input'));
    await htmlToMd({ input_path: 'memory://in', output_path: 'memory://out' });
    expect(await glob('memory://out/**')).toEqual(['memory://out/data-00000-of-00002.jsonl.gz', 'memory://out/data-00001-of-00002.jsonl.gz']);
    expect((await readRecords('memory://out/data-00000-of-00002.jsonl.gz')).map((r) => r['id'])).toEqual(['a1', 'a2']);
    expect(await readRecords('memory://out/data-00001-of-00002.jsonl.gz')).toEqual([
      { id: 'b', source: 's', format: 'md', metadata: {}, text: '# B\n\nAbout B, with words.' },
    ]);
  });

  it('reports PIPELINE_INPUT_NOT_FOUND when no .jsonl.gz file is under input_path', async () => {
    await expect(htmlToMd({ input_path: 'memory://nothing', output_path: 'memory://out' })).rejects.toMatchObject({
      code: 'PIPELINE_INPUT_NOT_FOUND',
    });
  });

  it('reports PIPELINE_CONFIG_INVALID for a bad config or bad resources', async () => {
    await expect(htmlToMd({ input_path: 'memory://in', output_path: 'memory://out', max_parallelism: 0 })).rejects.toMatchObject({
      code: 'PIPELINE_CONFIG_INVALID',
    });
    await writeBytes('memory://in/a.jsonl.gz', gz([{ id: 'a', source: 's', text: page('A') }]));
    await expect(
      htmlToMd({ input_path: 'memory://in', output_path: 'memory://out', resources: { device: { kind: 'tpu', variant: 'no-such-tpu' } } }),
    ).rejects.toMatchObject({ code: 'PIPELINE_CONFIG_INVALID' });
  });

  it('stops between records when the signal aborts', async () => {
    await writeBytes('memory://in/a.jsonl.gz', gz([{ id: 'a', source: 's', text: page('A') }]));
    const controller = new AbortController();
    controller.abort(new Error('lease lost'));
    await expect(htmlToMd({ input_path: 'memory://in', output_path: 'memory://out' }, { signal: controller.signal })).rejects.toThrow('lease lost');
    expect(await glob('memory://out/**')).toEqual([]);
  });
});
