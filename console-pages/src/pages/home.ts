import { callApi, messageOf } from '../api.ts';
import { vouchedForInWords } from '../client-source.ts';
import { errorBox, formatTime, h, render, showError } from '../dom.ts';
import type { PageContext } from '../page.ts';
import { scopeItem } from '../scopes.ts';
import { currentSession, forgetToken, type Session } from '../session.ts';
import { signOut } from '../sign-in.ts';
import { pagePath, signInPath } from '../site.ts';

/** A connected assistant as `GET /api/v1/oauth/grants` lists it. */
interface Grant {
  grant_id: string;
  client_id: string;
  client_name: string;
  client_source: string;
  scopes: string[];
  created_at: string;
  last_used_at: string;
}

/** Home: who is signed in, and the assistants connected to their account, each with Disconnect. */
export function homePage(context: PageContext): void {
  const session = currentSession();
  const signedIn = h('section', { class: 'card' }, h('h2', {}, session ? 'Signed in' : 'Not signed in'));
  if (session) {
    const signOutButton = h('button', { type: 'button', class: 'secondary' }, 'Sign out');
    signOutButton.addEventListener('click', () => signOut(context.config));
    signedIn.append(
      h(
        'p',
        { id: 'signed-in' },
        'Signed in as ',
        h('strong', { id: 'email' }, session.name),
        session.expiresAt
          ? h('span', { class: 'muted' }, ` (until ${session.expiresAt.toLocaleString()})`)
          : '',
      ),
      h('p', { class: 'actions' }, signOutButton),
    );
  } else {
    signedIn.append(
      h('p', { id: 'signed-out' }, 'Nobody is signed in in this tab.'),
      h('p', { class: 'actions' }, h('a', { class: 'button', href: signInPath(pagePath('')) }, 'Sign in')),
    );
  }
  render(
    'Home',
    h('h1', {}, 'Business Platform'),
    h(
      'p',
      {},
      'Approve the assistants that ask to work on your business data, accept invites, and see and disconnect the assistants connected to your account.',
    ),
    signedIn,
    session ? assistantsSection(context, session) : null,
  );
}

/** Assistants shown at first and added by each "Show more". */
const GRANTS_PER_PAGE = 20;

/** One page of `GET /api/v1/oauth/grants`. */
interface GrantPage {
  grants?: Grant[];
  next_cursor?: string | null;
}

function assistantsSection(context: PageContext, session: Session): HTMLElement {
  const list = h('ul', { class: 'grants', 'aria-live': 'polite' });
  const status = h('p', { class: 'success', role: 'status', hidden: true });
  const problem = errorBox();
  const more = h(
    'button',
    { type: 'button', id: 'more-grants', class: 'secondary', hidden: true },
    'Show more',
  );
  let nextCursor: string | null = null;
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'assistants-heading' },
    h('h2', { id: 'assistants-heading' }, 'Assistants connected to your account'),
    h(
      'p',
      {},
      'Each one may act as you on the businesses you manage, as far as its permissions go, until you disconnect it.',
    ),
    status,
    problem,
    list,
    h('p', { class: 'actions' }, more),
  );

  /** The first page again (from: undefined), or the page after the one shown, added below it. */
  async function load(from?: string): Promise<void> {
    more.disabled = true;
    const query = `?limit=${GRANTS_PER_PAGE}${from === undefined ? '' : `&cursor=${encodeURIComponent(from)}`}`;
    const { status: code, body } = await callApi(
      context.config,
      'GET',
      `/api/v1/oauth/grants${query}`,
      session.token,
    );
    more.disabled = false;
    if (code !== 200) {
      if (code === 401) forgetToken();
      showError(
        problem,
        'Could not list your assistants.',
        messageOf(body) || `The service answered ${code}.`,
      );
      return;
    }
    const page = body as GrantPage;
    const items = (page.grants ?? []).map((grant) => grantItem(grant));
    if (from === undefined) list.replaceChildren(...items);
    else list.append(...items);
    if (list.children.length === 0)
      list.append(h('li', { class: 'muted' }, 'No assistant is connected to your account.'));
    nextCursor = typeof page.next_cursor === 'string' ? page.next_cursor : null;
    more.hidden = nextCursor === null;
  }
  const refresh = () => load();
  more.addEventListener('click', () => {
    if (nextCursor !== null) void load(nextCursor);
  });

  function grantItem(grant: Grant): HTMLLIElement {
    const name = String(grant.client_name);
    const disconnect = h(
      'button',
      { type: 'button', class: 'secondary', 'aria-label': `Disconnect ${name}` },
      'Disconnect',
    );
    // Disconnecting cannot be undone (the assistant must be approved again): it asks first, in place.
    const confirm = h(
      'button',
      { type: 'button', class: 'danger', 'aria-label': `Yes, disconnect ${name}` },
      'Yes, disconnect',
    );
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const question = h(
      'p',
      { class: 'confirm', hidden: true },
      `Disconnect ${name}? It will no longer be able to act as you until you approve it again. `,
      confirm,
      ' ',
      cancel,
    );
    disconnect.addEventListener('click', () => {
      disconnect.hidden = true;
      question.hidden = false;
      confirm.focus();
    });
    cancel.addEventListener('click', () => {
      question.hidden = true;
      disconnect.hidden = false;
      disconnect.focus();
    });
    confirm.addEventListener('click', async () => {
      confirm.disabled = true;
      cancel.disabled = true;
      problem.hidden = true;
      status.hidden = true;
      const path = `/api/v1/oauth/grants/${encodeURIComponent(grant.grant_id)}`;
      const answer = await callApi(context.config, 'DELETE', path, session.token);
      if (answer.status !== 204) {
        showError(
          problem,
          `Could not disconnect ${name}.`,
          messageOf(answer.body) || `The service answered ${answer.status}.`,
        );
        confirm.disabled = false;
        cancel.disabled = false;
        return;
      }
      status.textContent = `${name} is disconnected: it can no longer act as you.`;
      status.hidden = false;
      await refresh();
    });
    return h(
      'li',
      { class: 'grant' },
      h('h3', {}, name),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Vouched for by'),
        h('dd', {}, vouchedForInWords(String(grant.client_source), String(grant.client_id))),
        h('dt', {}, 'It may'),
        h('dd', {}, h('ul', { class: 'scopes' }, ...grant.scopes.map((scope) => scopeItem(String(scope))))),
        h('dt', {}, 'Connected since'),
        h('dd', {}, formatTime(String(grant.created_at))),
        h('dt', {}, 'Last used'),
        h('dd', {}, formatTime(String(grant.last_used_at))),
      ),
      h('p', { class: 'actions' }, disconnect),
      question,
    );
  }

  void refresh();
  return section;
}
