import type { Server as HttpServer } from 'node:http';
import type { Http2Server } from 'node:http2';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';

/** The first bytes of every HTTP/2 connection with prior knowledge (RFC 9113 §3.4), which gRPC clients send. */
const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/**
 * A socket whose first bytes were already read: gives them first, then the socket's. The HTTP/2 server
 * reads a net socket's handle directly, past anything put back with `unshift`, so it gets this stream.
 */
class PrefixedSocket extends Duplex {
  constructor(
    private readonly socket: Socket,
    head: Buffer,
  ) {
    super();
    this.push(head);
    socket.on('data', (d: Buffer) => {
      if (!this.push(d)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (e) => this.destroy(e));
    socket.on('close', () => this.destroy());
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.socket.write(chunk, encoding, cb);
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.socket.end();
    cb();
  }

  override _destroy(e: Error | null, cb: (e?: Error | null) => void): void {
    this.socket.destroy();
    cb(e);
  }
}

/**
 * Serves HTTP/1.1 and cleartext HTTP/2 (gRPC) on one port: the first bytes of a connection decide. A
 * connection opening with the HTTP/2 preface goes to `http2`, anything else to `http1` (no HTTP/1.1
 * method starts like the preface, and a browser never speaks cleartext HTTP/2).
 */
export function dispatchByPreface(socket: Socket, http1: HttpServer, http2: Http2Server): void {
  let head: Buffer = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    const n = Math.min(head.length, HTTP2_PREFACE.length);
    const isHttp2 = head.subarray(0, n).equals(HTTP2_PREFACE.subarray(0, n));
    if (isHttp2 && n < HTTP2_PREFACE.length) return; // not enough bytes to tell yet
    socket.off('data', onData);
    socket.pause();
    if (isHttp2) {
      http2.emit('connection', new PrefixedSocket(socket, head));
    } else {
      // The HTTP/1.1 server reads what was put back once the socket flows again.
      socket.unshift(head);
      http1.emit('connection', socket);
      socket.resume();
    }
  };
  socket.on('data', onData);
}
