import { isIP } from 'node:net';
import { generate } from 'selfsigned';

export interface SelfSignedCertificate {
  /** The private key, PEM. */
  key: string;
  /** The certificate, PEM: also the authority a client must trust to accept it. */
  cert: string;
}

/**
 * A P-256 certificate that signs itself, for a loopback TLS server that a test trusts explicitly
 * (made in-process, so no openssl binary is needed). `names` become its subject alternative names:
 * IP literals as IP addresses, anything else as DNS names; the first is also its common name.
 * Valid for two days from now: longer than any test run.
 */
export async function selfSignedCertificate(names: [string, ...string[]]): Promise<SelfSignedCertificate> {
  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate.getTime() + 2 * 24 * 60 * 60 * 1000);
  const { private: key, cert } = await generate([{ name: 'commonName', value: names[0] }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: names.map((name) =>
          isIP(name) ? { type: 7 as const, ip: name } : { type: 2 as const, value: name },
        ),
      },
    ],
  });
  return { key, cert };
}
