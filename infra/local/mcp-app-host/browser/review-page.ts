import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { h } from '../../../../console-pages/src/dom.ts';
import type { ReviewHostConfig } from '../review-host-config.ts';
import {
  currentAccessToken,
  finishAuthorization,
  forgetTokens,
  isAuthorizationAnswer,
  startAuthorization,
} from './assistant-sign-in.ts';
import { mountView } from './mount-view.ts';

/**
 * The local review host (`/console/dev/review`): a web host of MCP Apps over the running stack, so
 * the changeset review view can be seen and used without an assistant. It connects to /mcp as an
 * assistant of the person using it (assistant-sign-in.ts), then shows the view of a changeset
 * (`?changeset_id=…`, through get_changeset) or of a demo changeset it stages itself in one of the
 * person's businesses (open_edit_session, propose_changes). The view's own tool calls (tick,
 * apply, revert) go to /mcp through this page's MCP client, as in an assistant's chat.
 */
const config = JSON.parse(
  document.getElementById('review-host-config')?.textContent ?? '{}',
) as ReviewHostConfig;
const mainArea = document.getElementById('main') as HTMLElement;

/** The demo changeset: two changes, one to the profile and one new FAQ. */
const demoChanges = (sessionId: string) => ({
  session_id: sessionId,
  summary: 'New tagline and an FAQ (demo)',
  items: [
    { entity: 'profile', action: 'update', fields: { tagline: 'Fresh bread every morning' } },
    { entity: 'faq', action: 'create', fields: { question: 'Open on Sundays?', answer: 'From 8 to 12.' } },
  ],
});

function show(...content: (Node | string)[]): void {
  mainArea.replaceChildren(...content);
}

function problem(headline: string, detail: string): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, h('strong', {}, headline), ' ', detail);
}

/** A tool result's text, for when it is an error. */
const resultText = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');

function showConnect(trouble?: HTMLElement): void {
  const connect = h('button', { type: 'button' }, 'Connect');
  connect.addEventListener('click', () => {
    connect.disabled = true;
    void startAuthorization(config, window.location.search);
  });
  show(
    h('h1', {}, 'Review view host'),
    ...(trouble ? [trouble] : []),
    h(
      'p',
      {},
      'This local page shows the changeset review view as an assistant with MCP Apps shows it in a chat. ',
      'It connects to the tool server as an assistant of yours: you sign in if needed and approve it on the consent page.',
    ),
    connect,
  );
}

async function connectMcp(): Promise<Client> {
  const client = new Client({ name: config.hostName, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${config.issuer}/mcp`), {
    // Every request carries the current access token, renewed when it is about to expire.
    fetch: async (input, init) => {
      const token = await currentAccessToken(config);
      if (!token) throw new Error('This page is no longer connected: reload it to connect again.');
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    },
  });
  await client.connect(transport);
  return client;
}

/** Show a tool's result in the review view, as a host does for a tool whose `_meta.ui` names one. */
async function showView(
  client: Client,
  tool: string,
  toolArguments: Record<string, unknown>,
  toolResult: CallToolResult,
) {
  const { tools } = await client.listTools();
  const uri = (tools.find((t) => t.name === tool)?._meta?.ui as { resourceUri?: string } | undefined)
    ?.resourceUri;
  if (!uri) throw new Error(`The tool ${tool} names no view.`);
  const { contents } = await client.readResource({ uri });
  const view = contents[0] as { text?: string; _meta?: { ui?: { csp?: Record<string, string[]> } } };
  const area = h('section', { class: 'card', 'aria-label': 'The review view' });
  show(
    h('h1', {}, 'Review proposed changes'),
    h(
      'p',
      { class: 'note' },
      'What an assistant with MCP Apps shows in the chat; the view acts through this page.',
    ),
    area,
    h('p', {}, h('a', { href: config.pagePath }, 'Stage another demo changeset')),
  );
  await mountView(
    {
      hostName: config.hostName,
      html: view.text ?? '',
      csp: view._meta?.ui?.csp,
      sandboxUrl: config.sandboxUrl,
      toolArguments,
      toolResult,
      theme: window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
    },
    (params) => client.callTool(params) as Promise<CallToolResult>,
    area,
  );
}

async function showChangeset(client: Client, changesetId: string): Promise<void> {
  const toolArguments = { changeset_id: changesetId };
  const result = (await client.callTool({
    name: 'get_changeset',
    arguments: toolArguments,
  })) as CallToolResult;
  if (result.isError) {
    show(
      problem('No such changeset here.', resultText(result)),
      h('p', {}, h('a', { href: config.pagePath }, 'Stage a demo changeset')),
    );
    return;
  }
  await showView(client, 'get_changeset', toolArguments, result);
}

async function stageDemo(client: Client, businessId: string): Promise<void> {
  const session = (await client.callTool({
    name: 'open_edit_session',
    arguments: { business_id: businessId },
  })) as CallToolResult;
  if (session.isError) throw new Error(resultText(session));
  const toolArguments = demoChanges((session.structuredContent as { id: string }).id);
  const result = (await client.callTool({
    name: 'propose_changes',
    arguments: toolArguments,
  })) as CallToolResult;
  if (result.isError) throw new Error(resultText(result));
  const changesetId = (result.structuredContent as { id: string }).id;
  // A reload shows the same changeset (through get_changeset).
  window.history.pushState(null, '', `${config.pagePath}?changeset_id=${encodeURIComponent(changesetId)}`);
  await showView(client, 'propose_changes', toolArguments, result);
}

async function showChooser(client: Client): Promise<void> {
  const result = (await client.callTool({ name: 'list_businesses', arguments: {} })) as CallToolResult;
  const businesses =
    (result.structuredContent as { businesses?: { business_id: string; name: string; role: string }[] })
      ?.businesses ?? [];
  if (result.isError || businesses.length === 0) {
    show(h('h1', {}, 'Review view host'), problem('Nothing to review.', resultText(result)));
    return;
  }
  const select = h(
    'select',
    { id: 'business', name: 'business' },
    ...businesses.map((b) => h('option', { value: b.business_id }, `${b.name} (${b.role})`)),
  );
  const stage = h('form', { class: 'inline' }, h('label', { for: 'business' }, 'Business'), select);
  const stageButton = h('button', { type: 'submit' }, 'Stage a demo changeset');
  stage.append(stageButton);
  const trouble = h('div');
  stage.addEventListener('submit', (event) => {
    event.preventDefault();
    stageButton.disabled = true;
    stageDemo(client, select.value).catch((failure: Error) => {
      stageButton.disabled = false;
      trouble.replaceChildren(problem('Could not stage the demo changeset.', failure.message));
    });
  });
  const idInput = h('input', {
    id: 'changeset-id',
    name: 'changeset_id',
    required: true,
    autocomplete: 'off',
  });
  const open = h(
    'form',
    { class: 'inline', method: 'get', action: config.pagePath },
    h('label', { for: 'changeset-id' }, 'Changeset id'),
    idInput,
    h('button', { type: 'submit' }, 'Open'),
  );
  show(
    h('h1', {}, 'Review view host'),
    trouble,
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'A demo changeset'),
      h(
        'p',
        {},
        'Stages two changes: a new tagline and a new FAQ. Nothing changes until you apply them in the view.',
      ),
      stage,
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'A changeset of yours'),
      h('p', {}, 'One an assistant proposed for you, by its id.'),
      open,
    ),
  );
}

async function start(): Promise<void> {
  const url = new URL(window.location.href);
  if (isAuthorizationAnswer(url)) {
    try {
      const returnTo = await finishAuthorization(config, url);
      window.history.replaceState(null, '', `${config.pagePath}${returnTo}`);
    } catch (failure) {
      window.history.replaceState(null, '', config.pagePath);
      showConnect(problem('Not connected.', (failure as Error).message));
      return;
    }
  }
  if (!(await currentAccessToken(config))) {
    showConnect();
    return;
  }
  let client: Client;
  try {
    client = await connectMcp();
  } catch (failure) {
    // Disconnected elsewhere (the console's connected assistants) or the stack restarted.
    forgetTokens();
    showConnect(problem('The tool server refused this page.', (failure as Error).message));
    return;
  }
  const changesetId = new URL(window.location.href).searchParams.get('changeset_id');
  if (changesetId) await showChangeset(client, changesetId);
  else await showChooser(client);
}

start().catch((failure: Error) => show(problem('Something went wrong.', failure.message)));
window.addEventListener('popstate', () => window.location.reload());
