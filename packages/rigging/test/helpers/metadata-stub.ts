import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A GCE metadata server stand-in on 127.0.0.1:0 that answers the zone query. */
export interface MetadataStub extends AsyncDisposable {
  /** `127.0.0.1:<port>`, for GCE_METADATA_HOST. */
  host: string;
  /** Requests received so far. */
  requests(): number;
}

/** Starts a stub answering `zone` (or never answering when `zone` is null). */
export async function startMetadataStub(zone: string | null): Promise<MetadataStub> {
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    if (zone === null) return; // hang until the client gives up
    if (req.url === '/computeMetadata/v1/instance/zone' && req.headers['metadata-flavor'] === 'Google') {
      res.end(zone);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    requests: () => count,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
