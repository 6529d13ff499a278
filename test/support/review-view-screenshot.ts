/**
 * `npm run screenshot:review`: the picture in docs/local-development.md of the changeset review view. Starts its own
 * ephemeral stack (as the tests do), connects the local review host as the first demo business's
 * owner, stages the demo changeset (two changes) and saves the view, about 800 px wide, to
 * docs/images/review-view.png.
 */
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { parseCommandLine } from '../../infra/command-line.ts';
import { startHarnessProcess } from '../../infra/local/harness-process.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { launchChromium } from './browser.ts';
import { connectReviewHost, stageDemoChangeset } from './review-host-page.ts';

const OUTPUT = join(ROOT_DIR, 'docs', 'images', 'review-view.png');
/** The console's stylesheet keeps the page's column near 620 px; scaled, the picture is ~800 px wide. */
const SCALE = 1.3;

const COMMAND = {
  name: 'npm run screenshot:review',
  usage: `
Usage: npm run screenshot:review

Redraws docs/images/review-view.png, docs/local-development.md's picture of the changeset review
view: starts an ephemeral stack of its own and a headless Chromium, stages the demo changeset as
the first demo business's owner and saves the view (about 800 px wide). Takes about a minute.

  -h, --help    this text

Example:
  npm run screenshot:review && git diff --stat docs/images/review-view.png
`,
};

parseCommandLine(COMMAND, {});
const harness = await startHarnessProcess();
const browser = await launchChromium().catch(async (error) => {
  await harness.stop();
  throw error;
});
try {
  const business = harness.info.credentials.businesses[0];
  if (!business) throw new Error('the demo data has no business');
  const page = await browser.newPage({
    viewport: { width: 800, height: 900 },
    deviceScaleFactor: SCALE,
    colorScheme: 'light',
  });
  page.setDefaultTimeout(30_000);
  await connectReviewHost(page, harness.info.baseUrl, String(decodeJwt(business.tokens.owner).email));
  await stageDemoChangeset(page, business.id);
  const view = page.locator('iframe[title="Review proposed changes"]');
  await view.screenshot({ path: OUTPUT });
  console.log(`wrote ${OUTPUT}`);
} finally {
  await browser.close();
  await harness.stop();
}
