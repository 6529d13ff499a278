import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { requiredEnv } from '#lib/config/env.ts';

/**
 * The changeset review view (MCP Apps, extension `io.modelcontextprotocol/ui`, specification
 * 2026-01-26): one self-contained HTML page that a host renders inside the chat for the results of
 * propose_changes and get_changeset, and through which the person ticks, applies and reverts. The
 * page is built from mcp-app/ at bundling time and ships beside the function's code, so it is read
 * from the function's directory (`LAMBDA_TASK_ROOT`, which Lambda sets and the local harness points
 * at the page it builds at start) on the first resources/read in a container, never at cold start.
 */
export const REVIEW_VIEW_URI = 'ui://business-platform/changeset-review';
export const REVIEW_VIEW_FILE = 'changeset-review.html';
/** The one content type MCP Apps defines for a view. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * What the view asks of its host: no origin to reach beyond the host bridge (an empty CSP: the
 * host's restrictive default, `connect-src 'none'`), and a border around it.
 */
const REVIEW_VIEW_UI_META = { csp: {}, prefersBorder: true };

/** The view as resources/list names it. */
export const reviewViewResource = {
  uri: REVIEW_VIEW_URI,
  name: 'changeset_review',
  title: 'Review proposed changes',
  description:
    'Shows a staged changeset as each record’s fields, old and new, with a checkbox per change, Apply and Revert.',
  mimeType: MCP_APP_MIME_TYPE,
  _meta: { ui: REVIEW_VIEW_UI_META },
};

/** The `_meta` of a tool whose results the view renders. */
export const reviewViewToolMeta = { ui: { resourceUri: REVIEW_VIEW_URI } };

/** The page, read once per container; a failed read is tried again by the next request. */
let html: Promise<string> | undefined;
const readHtml = () => {
  html ??= readFile(join(requiredEnv('LAMBDA_TASK_ROOT'), REVIEW_VIEW_FILE), 'utf8').catch(
    (error: unknown) => {
      html = undefined;
      throw error;
    },
  );
  return html;
};

/** The resources/read result of the view: its HTML and, again, what it asks of the host. */
export async function readReviewView() {
  return {
    contents: [
      {
        uri: REVIEW_VIEW_URI,
        mimeType: MCP_APP_MIME_TYPE,
        text: await readHtml(),
        _meta: { ui: REVIEW_VIEW_UI_META },
      },
    ],
  };
}
