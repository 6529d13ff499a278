// The dev console's only script, inlined into every page by infra/local/dev-console.ts.
// <body data-page="…"> says which page this is. Everything the API sends goes into the page
// through textContent, never as HTML.

const TOKEN_KEY = 'bps-dev-console-token';
const HOME = '/console/';

/** The signed-in user of this tab: the stored token and the claims the page shows. */
function session() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) return null;
  const claims = decodeClaims(token);
  if (!claims || typeof claims.email !== 'string' || (claims.exp && claims.exp * 1000 <= Date.now())) {
    sessionStorage.removeItem(TOKEN_KEY);
    return null;
  }
  return { token, email: claims.email, expiresAt: claims.exp ? new Date(claims.exp * 1000) : null };
}

/** The JWT's payload, read without checking it (the API checks it). */
function decodeClaims(token) {
  try {
    const part = token.split('.')[1] ?? '';
    const bytes = Uint8Array.from(atob(part.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  window.location.assign(HOME);
}

/** Only a same-origin path under /console/ may be a `next`; anything else goes home. */
function safeNext(next) {
  if (typeof next !== 'string' || !next.startsWith(HOME)) return HOME;
  try {
    const url = new URL(next, window.location.origin);
    if (url.origin === window.location.origin && url.pathname.startsWith(HOME)) {
      return url.pathname + url.search + url.hash;
    }
  } catch {
    // not a URL: go home
  }
  return HOME;
}

const here = () => window.location.pathname + window.location.search;
const signInUrl = (next) => `/console/sign-in?next=${encodeURIComponent(next)}`;

/** The session, or off to sign-in (coming back here afterwards). */
function requireSession() {
  const current = session();
  if (!current) window.location.replace(signInUrl(here()));
  return current;
}

/** Call the API same-origin; the body is parsed JSON when it is JSON. */
async function callApi(method, path, token) {
  let response;
  try {
    response = await fetch(path, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
  } catch (error) {
    return { status: 0, body: { message: `The service did not answer (${error.message})` } };
  }
  const text = await response.text();
  let body = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body };
}

/** The message an error body carries: ErrorResponse, HTTPValidationError or API Gateway's own. */
function messageOf(body) {
  if (body && typeof body === 'object') {
    if (body.error && typeof body.error.message === 'string') return body.error.message;
    if (Array.isArray(body.detail)) {
      return body.detail
        .map((item) => `${Array.isArray(item.loc) ? item.loc.join('.') : ''}: ${item.msg}`)
        .join('; ');
    }
    if (typeof body.message === 'string') return body.message;
  }
  return typeof body === 'string' ? body : '';
}

const byId = (id) => document.getElementById(id);

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** Fill an error box: a headline, the service's own message, and optionally a link. */
function showError(box, headline, detail, link) {
  box.replaceChildren(element('strong', headline));
  if (detail && detail !== headline) box.append(' ', element('span', detail));
  if (link) {
    const anchor = element('a', link.text);
    anchor.href = link.href;
    box.append(' ', anchor);
  }
  box.hidden = false;
}

const signInAgain = () => ({ text: 'Sign in again', href: signInUrl(here()) });

function formatTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : `${date.toLocaleString()} (${iso})`;
}

/** The header: who is signed in, and sign-out. */
function renderWho() {
  const box = byId('who');
  const current = session();
  if (!current) {
    if (document.body.dataset.page === 'sign-in') return;
    const link = element('a', 'Sign in');
    link.href = signInUrl(here());
    box.replaceChildren(link);
    return;
  }
  const button = element('button', 'Sign out', 'link');
  button.type = 'button';
  button.addEventListener('click', signOut);
  box.replaceChildren(element('span', current.email), ' ', button);
}

function homePage() {
  const current = session();
  if (!current) return;
  byId('email').textContent = current.email;
  if (current.expiresAt) byId('expires').textContent = `(until ${current.expiresAt.toLocaleString()})`;
  byId('signed-in').hidden = false;
  byId('signed-out').hidden = true;
  const signOutButton = byId('sign-out');
  signOutButton.hidden = false;
  signOutButton.addEventListener('click', signOut);
}

function signInPage() {
  const next = safeNext(new URLSearchParams(window.location.search).get('next'));
  const errorBox = byId('error');
  const buttons = () => document.querySelectorAll('button');
  async function signIn(email) {
    errorBox.hidden = true;
    for (const button of buttons()) button.disabled = true;
    let status = 0;
    let body = null;
    try {
      const response = await fetch('/console/dev/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      });
      status = response.status;
      body = await response.json();
    } catch (error) {
      body = { message: `The harness did not answer (${error.message})` };
    }
    if (status === 200 && typeof body.token === 'string') {
      sessionStorage.setItem(TOKEN_KEY, body.token);
      window.location.assign(next);
      return;
    }
    showError(errorBox, 'Could not sign in.', messageOf(body));
    for (const button of buttons()) button.disabled = false;
  }
  for (const button of document.querySelectorAll('button.user')) {
    button.addEventListener('click', () => signIn(button.dataset.email));
  }
  byId('email-form').addEventListener('submit', (event) => {
    event.preventDefault();
    signIn(byId('email').value.trim());
  });
}

/** 127.0.0.1, localhost or [::1], with or without a port. */
/**
 * Who vouches for the client (client_source), as the person must see it before approving: nobody
 * for a client that registered itself, the site of its https client_id for a metadata document.
 */
function showVouchedFor(box, request) {
  box.replaceChildren();
  if (request.client_source === 'dynamic') {
    box.className = 'warning';
    box.append(
      element('strong', 'Nobody has verified who made this assistant.'),
      ' It registered itself, so its name is whatever it chose to call itself. Approve only if you started it yourself.',
    );
  } else if (request.client_source === 'metadata_document') {
    let host = request.client_id;
    try {
      host = new URL(request.client_id).host;
    } catch {}
    box.className = 'warning';
    box.append(
      'Vouched for only by ',
      element('strong', host, 'host'),
      ', the site that describes this assistant. Approve only if you trust that site.',
    );
  } else {
    box.className = 'note';
    box.append('Registered by the operators of this service.');
  }
  box.hidden = false;
}

function isLoopbackHost(host) {
  let name = String(host).trim().toLowerCase();
  if (name === '::1') return true;
  name = name.startsWith('[') ? name.slice(0, name.indexOf(']') + 1) : (name.split(':')[0] ?? '');
  return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

const CONSENT_ERRORS = {
  401: 'Your sign-in is missing or has expired.',
  403: 'You are not eligible to approve this request.',
  404: 'No such request, or another user opened it.',
  409: 'This request has already been decided.',
  410: 'This request has expired. Start again from the assistant.',
  422: 'This consent link is not valid (bad request id).',
};

function showConsentError(box, status, body) {
  const detail = messageOf(body);
  const headline = CONSENT_ERRORS[status] ?? (detail || `The service answered ${status}.`);
  if (status === 401) sessionStorage.removeItem(TOKEN_KEY);
  showError(box, headline, detail, status === 401 ? signInAgain() : undefined);
}

async function consentPage() {
  const current = requireSession();
  if (!current) return;
  const requestId = new URLSearchParams(window.location.search).get('request_id');
  const errorBox = byId('error');
  if (!requestId) {
    byId('loading').hidden = true;
    showError(errorBox, 'This consent link has no request_id.');
    return;
  }
  const base = `/api/v1/oauth/requests/${encodeURIComponent(requestId)}`;
  const { status, body } = await callApi('GET', base, current.token);
  byId('loading').hidden = true;
  if (status !== 200) {
    showConsentError(errorBox, status, body);
    return;
  }
  const request = body;
  byId('client-name').textContent = request.client_name;
  byId('client-host').textContent = request.client_host;
  showVouchedFor(byId('vouched-for'), request);
  byId('loopback').hidden = !isLoopbackHost(request.client_host);
  byId('consented-before').hidden = request.consented_before !== true;
  const scopes = byId('scopes');
  for (const scope of request.scopes ?? []) {
    const item = element('li');
    item.append(element('span', scope.description ?? scope.name), ' ', element('code', scope.name));
    scopes.append(item);
  }
  byId('resource').textContent = request.resource;
  byId('signed-in-as').textContent = current.email;
  byId('expires-at').textContent = formatTime(request.expires_at);

  const approve = byId('approve');
  const deny = byId('deny');
  const pending = request.status === 'pending';
  if (!pending) {
    byId('status').textContent = `This request is ${request.status}; it can no longer be approved or denied.`;
    byId('status').hidden = false;
  }
  if (request.eligible === false) {
    byId('ineligible').textContent =
      `You cannot approve this request: ${request.ineligible_reason ?? 'not eligible'}`;
    byId('ineligible').hidden = false;
  }
  const enableButtons = () => {
    approve.disabled = !pending || request.eligible === false;
    deny.disabled = !pending;
  };
  enableButtons();
  byId('request').hidden = false;

  async function decide(action) {
    approve.disabled = true;
    deny.disabled = true;
    byId('decision-error').hidden = true;
    const answer = await callApi('POST', `${base}/${action}`, current.token);
    if (answer.status === 200 && typeof answer.body?.redirect_to === 'string') {
      window.location.assign(answer.body.redirect_to);
      return;
    }
    showConsentError(byId('decision-error'), answer.status, answer.body);
    // A decided, expired or vanished request stays closed; anything else may be tried again.
    if (![404, 409, 410].includes(answer.status)) enableButtons();
  }
  approve.addEventListener('click', () => decide('approve'));
  deny.addEventListener('click', () => decide('deny'));
}

async function invitePage() {
  const current = requireSession();
  if (!current) return;
  const inviteId = decodeURIComponent(window.location.pathname.slice('/console/admin/invites/'.length));
  byId('signed-in-as').textContent = current.email;
  byId('switch-user').href = signInUrl(here());
  const accept = byId('accept');
  accept.addEventListener('click', async () => {
    accept.disabled = true;
    byId('error').hidden = true;
    const path = `/api/v1/admin/platform-admin-invites/${encodeURIComponent(inviteId)}/accept`;
    const { status, body } = await callApi('POST', path, current.token);
    if (status === 200 && body?.data) {
      byId('success-email').textContent = body.data.email;
      const facts = byId('success-data');
      for (const [name, value] of Object.entries(body.data)) {
        facts.append(element('dt', name), element('dd', value === null ? '—' : String(value)));
      }
      byId('success').hidden = false;
      accept.hidden = true;
      return;
    }
    const message = messageOf(body) || `The service answered ${status}.`;
    if (status === 401) sessionStorage.removeItem(TOKEN_KEY);
    const link =
      status === 401
        ? signInAgain()
        : status === 403
          ? { text: 'Sign in as the invitee', href: signInUrl(here()) }
          : undefined;
    showError(byId('error'), 'Could not accept the invite.', message, link);
    accept.disabled = status === 409 || status === 410;
  });
}

const pages = { home: homePage, 'sign-in': signInPage, consent: consentPage, invite: invitePage };
renderWho();
pages[document.body.dataset.page]?.();
