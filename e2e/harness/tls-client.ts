// The client side of tests against cw-runtime's HTTPS listener: every name resolves to this machine, as DNS
// would send a custom host name to it, and a handshake reports the serial shown (or why it failed).
import type { LookupFunction } from 'node:net';
import { connect } from 'node:tls';

/** Resolves every name to 127.0.0.1 (the runtime's address in the tests). */
export const localLookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

/** The serial the listener on `port` shows for `servername` (trusting `ca`), or the handshake's error message. */
export function serialShown(port: number, servername: string, ca: string): Promise<{ serial: string } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, servername, ca }, () => {
      resolve({ serial: String(socket.getPeerCertificate().serialNumber).toLowerCase() });
      socket.end();
    });
    socket.once('error', (err) => resolve({ error: err.message }));
  });
}
