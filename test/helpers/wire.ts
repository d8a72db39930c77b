import { connect } from 'node:net';

/**
 * One HTTP request as written on the wire to 127.0.0.1:port, and the answer as read until the server closes the
 * connection (send `Connection: close`). The socket is not ended after writing: a half-closed socket may be dropped
 * before it is answered. `leave`: the client goes away mid-body (after 5 bytes of it) or 100 ms after writing it all.
 */
export function exchange(port: number, head: string, body: string | Buffer = '', leave?: 'mid-body' | 'after-body'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    const bytes = Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]);
    if (leave === 'mid-body') socket.write(bytes.subarray(0, Buffer.byteLength(head, 'latin1') + 5), () => setImmediate(() => socket.destroy()));
    else if (leave === 'after-body') socket.write(bytes, () => setTimeout(() => socket.destroy(), 100));
    else socket.write(bytes);
  });
}
