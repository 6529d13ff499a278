/** `npm run event -- <operationId>`: print a sample API Gateway (payload 2.0) event for one operation. */
import { sampleEvent } from '../sample-event.ts';
import { localCredentials, speakOneLine } from './local-stack.ts';
import { operationNamed } from './operation.ts';

speakOneLine();
const route = operationNamed(process.argv[2], 'event');
console.log(JSON.stringify(sampleEvent(route, localCredentials()), null, 2));
