import { callApi, messageOf } from '../api.ts';
import { errorBox, formatTime, h, render, showError } from '../dom.ts';
import { type PageContext, requireSession } from '../page.ts';
import { forgetToken } from '../session.ts';
import { here, signInPath } from '../site.ts';

/** Accept a platform admin invite (`admin/invites/{invite_id}`, the e-mail's link). */
export function invitePage(context: PageContext, inviteId: string): void {
  const session = requireSession(context);
  if (!session) return;
  const accept = h('button', { type: 'button', id: 'accept' }, 'Accept invite');
  const problem = errorBox();
  const facts = h('dl', { class: 'facts' });
  const acceptedEmail = h('span');
  const success = h(
    'div',
    { class: 'success', role: 'status', hidden: true },
    h('p', {}, h('strong', {}, 'Invite accepted.'), ' ', acceptedEmail, ' is now a platform admin.'),
    facts,
  );
  render(
    'Accept invite',
    h('h1', {}, 'Platform admin invite'),
    h(
      'section',
      { class: 'card' },
      h(
        'p',
        {},
        'Signed in as ',
        h('strong', { id: 'signed-in-as' }, session.name),
        '. ',
        h('a', { href: signInPath(here()) }, 'Sign in as someone else'),
      ),
      h(
        'p',
        {},
        'Accepting makes this account a platform admin of the Business Platform. Only the invited e-mail address can accept.',
      ),
      h('p', { class: 'actions' }, accept),
      problem,
      success,
    ),
  );
  accept.addEventListener('click', async () => {
    accept.disabled = true;
    problem.hidden = true;
    const path = `/api/v1/admin/platform-admin-invites/${encodeURIComponent(inviteId)}/accept`;
    const { status, body } = await callApi(context.config, 'POST', path, session.token);
    const data = (body as { data?: Record<string, unknown> } | null)?.data;
    if (status === 200 && data) {
      acceptedEmail.textContent = String(data.email);
      const name = [data.first_name, data.last_name].filter(Boolean).join(' ');
      const shown: [string, string | null][] = [
        ['Name', name || null],
        ['Phone', data.phone ? String(data.phone) : null],
        ['Invited by', data.invited_by ? String(data.invited_by) : null],
        ['Invited', data.invited_at ? formatTime(String(data.invited_at)) : null],
        ['Accepted', data.accepted_at ? formatTime(String(data.accepted_at)) : null],
      ];
      for (const [label, value] of shown) {
        if (value !== null) facts.append(h('dt', {}, label), h('dd', {}, value));
      }
      success.hidden = false;
      accept.hidden = true;
      return;
    }
    if (status === 401) forgetToken();
    const link =
      status === 401
        ? { text: 'Sign in again', href: signInPath(here()) }
        : status === 403
          ? { text: 'Sign in as the invitee', href: signInPath(here()) }
          : undefined;
    showError(
      problem,
      'Could not accept the invite.',
      messageOf(body) || `The service answered ${status}.`,
      link,
    );
    accept.disabled = status === 409 || status === 410;
  });
}
