import { callApi, messageOf } from '../api.ts';
import { armAfterAttention } from '../attention-arming.ts';
import { vouchedFor } from '../client-source.ts';
import { errorBox, formatTime, h, render, showError } from '../dom.ts';
import { type PageContext, requireSession } from '../page.ts';
import { scopeItem } from '../scopes.ts';
import { forgetToken } from '../session.ts';
import { here, pagePath, signInPath } from '../site.ts';

/** The consent request as `GET /api/v1/oauth/requests/{id}` answers it. */
interface ConsentRequest {
  client_id: string;
  client_name: string;
  client_host: string;
  client_source: string;
  scopes: { name: string; description?: string }[];
  resource: string;
  expires_at: string;
  status: string;
  eligible: boolean;
  ineligible_reason: string | null;
  consented_before: boolean;
}

const CONSENT_ERRORS: Record<number, string> = {
  401: 'Your sign-in is missing or has expired.',
  403: 'You are not eligible to approve this request.',
  404: 'This link is not valid or has expired (or another user opened it).',
  409: 'This request has already been decided.',
  410: 'This link has expired. Start again from the assistant.',
  422: 'This link is not valid or has expired.',
};

/** Answers that mean the link itself is bad: the API's own wording (`path.request_id: …`) is not shown. */
const BAD_LINK = new Set([404, 410, 422]);

function showConsentError(box: HTMLElement, status: number, body: unknown): void {
  const detail = BAD_LINK.has(status) ? undefined : messageOf(body);
  const headline = CONSENT_ERRORS[status] ?? (detail || `The service answered ${status}.`);
  if (status === 401) forgetToken();
  showError(
    box,
    headline,
    detail,
    status === 401
      ? { text: 'Sign in again', href: signInPath(here()) }
      : { text: 'Back to the console', href: pagePath('') },
  );
}

/** 127.0.0.1, localhost or [::1], with or without a port. */
function isLoopbackHost(host: string): boolean {
  let name = host.trim().toLowerCase();
  if (name === '::1') return true;
  name = name.startsWith('[') ? name.slice(0, name.indexOf(']') + 1) : (name.split(':')[0] ?? '');
  return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

/** The consent API's answer to a decision. */
interface Decision {
  redirect_to: string | null;
  client_link: string | null;
}

/**
 * After Deny of a client nobody vetted, the service gives no redirect: the browser stays here,
 * told what happened, and the way back to the assistant is a plain link the person may follow.
 */
function showDenied(request: ConsentRequest, clientLink: string | null): void {
  render(
    'Denied',
    h(
      'section',
      { id: 'denied', class: 'card consent' },
      h('h1', {}, 'You denied ', h('span', { id: 'client-name' }, String(request.client_name))),
      h('p', {}, 'It gets no access to your account. Nothing was sent to it.'),
      clientLink
        ? h(
            'p',
            {},
            'If you started it yourself, you can tell it that you said no: ',
            h(
              'a',
              { id: 'client-link', href: clientLink, rel: 'noreferrer' },
              `go back to ${String(request.client_host)}`,
            ),
            '. Otherwise close this tab.',
          )
        : h('p', {}, 'You can close this tab.'),
    ),
  );
}

/**
 * OAuth consent (`oauth/consent?request_id=…`, where `/oauth/authorize` sends the person): who
 * asks, who vouches for it, where approving leads, what it may do; Approve or Deny. Approve takes
 * clicks only once the page has held the person's attention for a moment (attention-arming.ts).
 */
export async function consentPage(context: PageContext): Promise<void> {
  const session = requireSession(context);
  if (!session) return;
  const loading = h('p', { class: 'muted' }, 'Loading the request…');
  const problem = errorBox();
  render('Approve an assistant', loading, problem);
  const requestId = new URLSearchParams(window.location.search).get('request_id');
  if (!requestId) {
    loading.hidden = true;
    showError(problem, 'This link is not valid: it names no request.', undefined, {
      text: 'Back to the console',
      href: pagePath(''),
    });
    return;
  }
  const base = `/api/v1/oauth/requests/${encodeURIComponent(requestId)}`;
  const { status, body } = await callApi(context.config, 'GET', base, session.token);
  loading.hidden = true;
  if (status !== 200) {
    showConsentError(problem, status, body);
    return;
  }
  const request = body as ConsentRequest;
  const pending = request.status === 'pending';
  const approve = h('button', { type: 'button', id: 'approve' }, 'Approve');
  const deny = h('button', { type: 'button', id: 'deny', class: 'secondary' }, 'Deny');
  const decisionError = h('p', { id: 'decision-error', class: 'error', role: 'alert', hidden: true });
  const host = String(request.client_host);
  const vouched = vouchedFor(String(request.client_source), String(request.client_id));
  vouched.id = 'vouched-for';
  render(
    'Approve an assistant',
    h(
      'section',
      { id: 'request', class: 'card consent' },
      h(
        'h1',
        {},
        h('span', { id: 'client-name' }, String(request.client_name)),
        ' wants to work on your business data',
      ),
      h(
        'p',
        { class: 'destination' },
        'Approving will send you to ',
        h('strong', { id: 'client-host', class: 'host' }, host),
      ),
      vouched,
      isLoopbackHost(host)
        ? h(
            'p',
            { id: 'loopback', class: 'warning' },
            h('strong', {}, 'This assistant runs on this computer.'),
            ' Approve only if you started it yourself.',
          )
        : null,
      request.consented_before ? h('p', { class: 'muted' }, 'You approved this assistant before.') : null,
      h('h2', {}, 'It asks to'),
      h(
        'ul',
        { id: 'scopes', class: 'scopes' },
        ...(request.scopes ?? []).map((scope) => scopeItem(String(scope.name), scope.description)),
      ),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'For'),
        h('dd', { id: 'resource' }, String(request.resource)),
        h('dt', {}, 'Signed in as'),
        h('dd', { id: 'signed-in-as' }, session.name),
        h('dt', {}, 'Request expires'),
        h('dd', { id: 'expires-at' }, formatTime(String(request.expires_at))),
      ),
      pending
        ? null
        : h(
            'p',
            { id: 'status', class: 'warning' },
            `This request is ${request.status}; it can no longer be approved or denied.`,
          ),
      request.eligible === false
        ? h(
            'p',
            { id: 'ineligible', class: 'warning' },
            `You cannot approve this request: ${request.ineligible_reason ?? 'not eligible'}`,
          )
        : null,
      decisionError,
      h('p', { class: 'actions' }, approve, deny),
    ),
  );
  let open = pending;
  const arming = armAfterAttention(approve, () => open && request.eligible !== false);
  const enableButtons = () => {
    arming.refresh();
    deny.disabled = !open;
  };
  enableButtons();

  async function decide(action: 'approve' | 'deny'): Promise<void> {
    open = false;
    enableButtons();
    decisionError.hidden = true;
    const answer = await callApi(context.config, 'POST', `${base}/${action}`, session?.token ?? '');
    const decision = answer.body as Partial<Decision> | null;
    if (answer.status === 200 && typeof decision?.redirect_to === 'string') {
      window.location.assign(decision.redirect_to);
      return;
    }
    if (answer.status === 200 && action === 'deny') {
      showDenied(request, typeof decision?.client_link === 'string' ? decision.client_link : null);
      return;
    }
    showConsentError(decisionError, answer.status, answer.body);
    // A decided, expired or vanished request stays closed; anything else may be tried again.
    open = ![404, 409, 410].includes(answer.status);
    enableButtons();
  }
  approve.addEventListener('click', () => {
    // The disabled state already refuses such a click; this holds if anything re-enables it.
    if (arming.armed()) void decide('approve');
  });
  deny.addEventListener('click', () => void decide('deny'));
}
