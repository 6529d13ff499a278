import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
} from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ACTION_BUTTON_ID, type ReviewChangeset, type ReviewState, renderReview } from './render-review.ts';

/**
 * The changeset review view in the browser: an MCP App (extension `io.modelcontextprotocol/ui`)
 * that the host renders for propose_changes and get_changeset. It holds no review state of its
 * own: ticking calls set_change_ticked at once, Apply calls apply_changes, Revert revert_changes,
 * each through the host bridge (the view may reach no network itself), and each answer is drawn.
 */
const root = document.getElementById('review') as HTMLElement;
const state: ReviewState = {};
const app = new App(
  { name: 'business-platform-changeset-review', version: '1.0.0' },
  {},
  { autoResize: true },
);

/** The control that last had keyboard focus, by id: a redraw replaces it, and it may be disabled a while. */
let focusedId: string | undefined;
root.addEventListener('focusin', (event) => {
  focusedId = (event.target as HTMLElement).id || undefined;
});

/** Draws the state, giving focus back to the control that had it, unless it left the view. */
function draw(): void {
  const focusInView = document.activeElement === document.body || root.contains(document.activeElement);
  root.innerHTML = renderReview(state);
  root.setAttribute('aria-busy', String(Boolean(state.busy)));
  if (focusInView && focusedId) document.getElementById(focusedId)?.focus();
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join(' ');

const isChangeset = (value: unknown): value is ReviewChangeset =>
  typeof value === 'object' && value !== null && Array.isArray((value as ReviewChangeset).items);

/** Takes a tool's answer: a changeset (or an outcome, which is one) to draw, or its refusal. */
function take(result: CallToolResult): void {
  if (result.isError) state.error = textOf(result) || 'The service refused the change.';
  else if (isChangeset(result.structuredContent)) {
    state.changeset = result.structuredContent;
    state.error = undefined;
  }
}

async function call(name: string, args: Record<string, unknown>): Promise<void> {
  state.busy = true;
  draw();
  try {
    take((await app.callServerTool({ name, arguments: args })) as CallToolResult);
  } catch (error) {
    state.error = `The host could not reach the service: ${(error as Error).message}`;
  } finally {
    state.busy = false;
    draw();
  }
}

root.addEventListener('change', (event) => {
  const box = event.target as HTMLInputElement;
  const itemId = box.dataset.itemId;
  if (box.type !== 'checkbox' || !itemId || !state.changeset) return;
  void call('set_change_ticked', { changeset_id: state.changeset.id, item_id: itemId, ticked: box.checked });
});

root.addEventListener('click', (event) => {
  const button = (event.target as HTMLElement).closest('button');
  if (button?.id !== ACTION_BUTTON_ID || !state.changeset || state.busy) return;
  const tool = button.dataset.action === 'apply' ? 'apply_changes' : 'revert_changes';
  void call(tool, { changeset_id: state.changeset.id });
});

function followHost(context: ReturnType<App['getHostContext']>): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

app.ontoolresult = (result) => {
  take(result as CallToolResult);
  draw();
};
app.onhostcontextchanged = followHost;

draw();
void app.connect().then(() => followHost(app.getHostContext()));
