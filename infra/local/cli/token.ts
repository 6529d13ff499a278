/** `npm run token -- --email someone@example.com [--hours 24]`: a console token from the local dev issuer. */
import { mkdirSync } from 'node:fs';
import { parseCommandLine, usageError } from '../../command-line.ts';
import { loadDevIssuer } from '../dev-issuer.ts';
import { STATE_DIR } from '../paths.ts';
import { speakOneLine } from './cli-failure.ts';

const COMMAND = {
  name: 'npm run token',
  usage: `
Usage: npm run token -- --email E [--hours N]

Prints a console token (a JWT) for the person with this address, signed by the local dev issuer
(its key is in .local/, made on first use). The service takes it as a Bearer token.

  --email E     whose token: any address (the person need not exist)
  --hours N     how long it is valid (default 24)
  -h, --help    this text

Example:
  TOKEN=$(npm run -s token -- --email owner@harbor-bakery.example)
`,
};

speakOneLine();
const { values } = parseCommandLine(COMMAND, {
  options: { email: { type: 'string' }, hours: { type: 'string', default: '24' } },
});
if (!values.email || !/^[^@\s]+@[^@\s]+$/.test(values.email))
  usageError(COMMAND, 'pass --email someone@example.com');
const hours = Number(values.hours);
if (!Number.isFinite(hours) || hours <= 0) usageError(COMMAND, '--hours must be a positive number');

mkdirSync(STATE_DIR, { recursive: true });
const issuer = await loadDevIssuer(STATE_DIR);
console.log(await issuer.mintToken({ email: values.email, hours }));
