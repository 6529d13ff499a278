/** CDK entry point (cdk.json): `npm run synth`, `npm run deploy`. */
import { buildServiceApp } from './service-app.ts';

buildServiceApp().app.synth();
