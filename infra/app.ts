/** CDK entry point (cdk.json): `npm run synth`, `npm run deploy`. */

import { buildServiceApp } from './service-app.ts';
import { ContextError } from './service-context.ts';

try {
  buildServiceApp().app.synth();
} catch (error) {
  if (!(error instanceof ContextError)) throw error;
  // A setting to fix, not a bug: one line, no stack trace.
  console.error(`error: ${error.message}`);
  process.exit(1);
}
