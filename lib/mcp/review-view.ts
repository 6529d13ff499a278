import { bundledFile } from '#lib/config/bundled-file.ts';

/**
 * The changeset review view (MCP Apps, extension `io.modelcontextprotocol/ui`, specification
 * 2026-01-26): one self-contained HTML page that a host renders inside the chat for the results of
 * propose_changes and get_changeset, and through which the person ticks, applies and reverts. The
 * page is built from mcp-app/ at bundling time and ships beside the function's code
 * (lib/config/bundled-file.ts), read on the first resources/read in a container.
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

/** The page, read once per container. */
const readHtml = bundledFile(REVIEW_VIEW_FILE, (text) => text);

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
