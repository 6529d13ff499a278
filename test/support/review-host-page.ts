import type { Frame, Page } from 'playwright-core';
import { REVIEW_HOST_PATH } from '../../infra/local/dev-review-host.ts';
import { DEV_SIGN_IN_PATHS } from '../../infra/local/dev-sign-in.ts';

/**
 * Driving the local review host (infra/local/dev-review-host.ts) in a browser, as a person does:
 * used by its browser test and by the script that takes the screenshot in docs/local-development.md.
 */

/** Open the page, Connect, sign in as `email` on the dev sign-in page, and Approve on the consent page. */
export async function connectReviewHost(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}${REVIEW_HOST_PATH}`);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.waitForURL((url) => url.pathname === DEV_SIGN_IN_PATHS.authorize);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname.endsWith('/oauth/consent'));
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.waitForURL((url) => url.pathname === REVIEW_HOST_PATH);
}

/** Stage the demo changeset in that business; resolves with the view's frame once it shows Apply. */
export async function stageDemoChangeset(page: Page, businessId: string): Promise<Frame> {
  await page.getByLabel('Business').selectOption(businessId);
  await page.getByRole('button', { name: 'Stage a demo changeset' }).click();
  return reviewViewFrame(page);
}

/** The view's document (the frame inside the sandbox frame), once it shows its Apply button. */
export async function reviewViewFrame(page: Page): Promise<Frame> {
  const view = page.frameLocator('iframe[title="Review proposed changes"]').frameLocator('iframe');
  await view.getByRole('button', { name: 'Apply', exact: true }).waitFor();
  const sandbox = page.frames().find((frame) => frame.url().includes(`${REVIEW_HOST_PATH}/sandbox`));
  const frame = sandbox?.childFrames()[0];
  if (!frame) throw new Error('the review view has no frame');
  return frame;
}
