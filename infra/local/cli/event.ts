/** `npm run event -- <operationId>`: print a sample API Gateway (payload 2.0) event for one operation. */
import { sampleEvent } from '../sample-event.ts';
import { speakOneLine } from './cli-failure.ts';
import { operationNamed } from './operation.ts';
import { localCredentials } from './running-stack.ts';

speakOneLine();
const route = operationNamed(process.argv[2], 'event');
console.log(JSON.stringify(sampleEvent(route, localCredentials()), null, 2));
