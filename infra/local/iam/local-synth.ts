import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import type { RouteDefinition } from '#lib/http/route.ts';
import { buildServiceApp } from '../../service-app.ts';
import { LOCAL_SES_SENDER, LOCAL_STAGE } from '../local-names.ts';
import { ROOT_DIR } from '../paths.ts';
import type { TemplateJson, TemplateSet } from './template-resolver.ts';

/**
 * The context the local synth adds to cdk.json's: the local stage, the harness's sender (so the
 * SES identity the policies name is the one the functions send from), and a console URL (any
 * non-example one; the harness sets the real one in the functions' environment).
 */
export const LOCAL_SYNTH_CONTEXT = {
  stage: LOCAL_STAGE,
  sesSender: LOCAL_SES_SENDER,
  consoleUrl: 'http://127.0.0.1:3000',
};

/**
 * The app synthesized as `npm run synth` builds it for the local stage, without bundling (so it
 * takes seconds, not minutes), over `routes` (else the route table): each stack's template by
 * stack name. The cloud assembly is written to a temporary folder, which is removed.
 */
export function synthesizeLocalTemplates(routes?: readonly RouteDefinition[]): TemplateSet {
  const { context } = JSON.parse(readFileSync(join(ROOT_DIR, 'cdk.json'), 'utf8'));
  const outdir = mkdtempSync(join(tmpdir(), 'bps-local-synth-'));
  try {
    const app = new App({
      outdir,
      context: { ...context, 'aws:cdk:bundling-stacks': [], ...LOCAL_SYNTH_CONTEXT },
    });
    buildServiceApp({ app, ...(routes ? { routes } : {}) });
    const assembly = app.synth();
    return new Map(
      assembly.stacksRecursively.map((stack) => [stack.stackName, stack.template as TemplateJson]),
    );
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

// Run as a program (template-cache.ts does, so that the harness never loads CDK): write the
// templates as JSON to the path given.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: local-synth.ts <output.json>');
  writeFileSync(out, JSON.stringify(Object.fromEntries(synthesizeLocalTemplates())));
}
