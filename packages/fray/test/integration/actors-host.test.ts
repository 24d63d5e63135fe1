// hostActor inside a running process and connectActor from elsewhere: no backend, a fixed address.
import { describe, expect, it } from 'vitest';
import { connectActor, hostActor } from '@marin/fray';

describe('hostActor and connectActor', () => {
  it('serves an object’s public methods at an address another handle calls', async () => {
    class Scorer {
      private calls = 0;
      score(docs: string[]): number[] {
        this.calls += 1;
        return docs.map((d) => d.length);
      }
      count(): number {
        return this.calls;
      }
    }
    const hosted = await hostActor(new Scorer());
    expect(hosted.name).toBe('Scorer');
    expect([...hosted.methods].sort()).toEqual(['count', 'score']);
    expect(hosted.address).toMatch(/^127\.0\.0\.1:\d+$/);
    await using handle = connectActor(hosted.address, { name: 'scorer' });
    expect(await handle.proxy<Scorer>().score(['ab', 'abcd'])).toEqual([2, 4]);
    expect(await handle.call('count')).toBe(1);
    await hosted.close();
    // Nothing supervises a connected actor: once it stops serving, calls fail as unavailable, within their deadline.
    const err = await handle.callWithOptions('count', [], { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'FRAY_ACTOR_UNAVAILABLE', retryable: true });
  });

  it('refuses to host an object without public methods', async () => {
    await expect(hostActor({ _hidden: () => 1 })).rejects.toMatchObject({ code: 'FRAY_INVALID_ARGUMENT' });
  });
});
