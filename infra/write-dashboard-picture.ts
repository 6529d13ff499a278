import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { parseCommandLine } from './command-line.ts';
import { dashboardBody, renderDashboardSvg } from './dashboard-picture.ts';
import { ROOT_DIR } from './local/paths.ts';
import { buildServiceApp } from './service-app.ts';

/** Where the deploy guide's picture of the dashboard lives. */
export const DASHBOARD_PICTURE = join(ROOT_DIR, 'docs', 'dashboard.svg');

/** The picture of the dev stage's dashboard, drawn from its synthesized Stages template (no bundling). */
export function dashboardPicture(): string {
  const { context } = JSON.parse(readFileSync(join(ROOT_DIR, 'cdk.json'), 'utf8'));
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const { stages } = buildServiceApp({ app });
  const template = app.synth().getStackByName(stages.stackName).template;
  return renderDashboardSvg(
    dashboardBody(template),
    `CloudWatch dashboard ${stages.stackName.replace(/-Stages$/, '')} (layout, not data)`,
  );
}

const COMMAND = {
  name: 'npm run dashboard:picture',
  usage: `
Usage: npm run dashboard:picture

Redraws docs/dashboard.svg, the deploy guide's picture of the CloudWatch dashboard, from the dev
stage's synthesized template (no bundling, no AWS access). Run it after changing the dashboard.

  -h, --help    this text

Example:
  npm run dashboard:picture && git diff --stat docs/dashboard.svg
`,
};

if (process.argv[1] === import.meta.filename) {
  parseCommandLine(COMMAND, {});
  writeFileSync(DASHBOARD_PICTURE, dashboardPicture());
  console.log(`wrote ${DASHBOARD_PICTURE}`);
}
