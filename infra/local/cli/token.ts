/** `npm run token -- --email someone@example.com [--hours 24]`: a console token from the local dev issuer. */
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadDevIssuer } from '../dev-issuer.ts';
import { STATE_DIR } from '../paths.ts';
import { fail, speakOneLine } from './cli-failure.ts';

speakOneLine();
const { values } = parseArgs({
  options: { email: { type: 'string' }, hours: { type: 'string', default: '24' } },
});
if (!values.email || !/^[^@\s]+@[^@\s]+$/.test(values.email)) fail('pass --email someone@example.com');
const hours = Number(values.hours);
if (!Number.isFinite(hours) || hours <= 0) fail('--hours must be a positive number');

mkdirSync(STATE_DIR, { recursive: true });
const issuer = await loadDevIssuer(STATE_DIR);
console.log(await issuer.mintToken({ email: values.email, hours }));
