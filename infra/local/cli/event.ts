/** `npm run event -- <operationId>`: print a sample API Gateway (payload 2.0) event for one operation. */
import { parseCommandLine } from '../../command-line.ts';
import { sampleEvent } from '../sample-event.ts';
import { speakOneLine } from './cli-failure.ts';
import { operationNamed } from './operation.ts';
import { localCredentials } from './running-stack.ts';

const COMMAND = {
  name: 'npm run event',
  usage: `
Usage: npm run event -- OPERATION_ID

Prints a sample API Gateway (payload 2.0) event for one operation, addressed to the running local
stack and signed in as its first demo business's owner when it runs. npm run openapi lists the
operations; npm run invoke -- OPERATION_ID --event FILE runs a handler with one.

  -h, --help    this text

Example:
  npm run -s event -- getBlogAutoSchedule > event.json
`,
};

speakOneLine();
const { positionals } = parseCommandLine(COMMAND, { allowPositionals: true });
const route = operationNamed(COMMAND, positionals, 'event');
console.log(JSON.stringify(sampleEvent(route, localCredentials()), null, 2));
