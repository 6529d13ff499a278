import { h, render } from './dom.ts';
import { renderWho } from './header.ts';
import { loadConfig } from './load-config.ts';
import type { PageContext } from './page.ts';
import { callbackPage } from './pages/callback.ts';
import { consentPage } from './pages/consent.ts';
import { homePage } from './pages/home.ts';
import { invitePage } from './pages/invite.ts';
import { notFoundPage } from './pages/not-found.ts';
import { signInPage } from './pages/sign-in.ts';
import { BASE_PATH } from './site.ts';

/**
 * The pages' one script: read config.json, then draw the page the path names (every path is
 * answered with index.html, so the path is the route).
 */
async function main(): Promise<void> {
  const loaded = await loadConfig();
  if ('problem' in loaded) {
    render(
      'Not configured',
      h('h1', {}, 'These pages are not set up'),
      h('p', { class: 'error', role: 'alert' }, loaded.problem),
    );
    return;
  }
  const context: PageContext = { config: loaded.config };
  const path = window.location.pathname;
  const page = path.startsWith(BASE_PATH) ? path.slice(BASE_PATH.length) : undefined;
  const signingIn = page === 'sign-in' || page === 'auth/callback';
  renderWho(context.config, !signingIn);
  const invite = /^admin\/invites\/([^/]+)$/.exec(page ?? '');
  if (page === '') homePage(context);
  else if (page === 'sign-in') await signInPage(context);
  else if (page === 'auth/callback') await callbackPage(context);
  else if (page === 'oauth/consent') await consentPage(context);
  else if (invite?.[1]) invitePage(context, decodePathPart(invite[1]));
  else notFoundPage();
}

/** A path segment decoded; one that is not valid percent-encoding stays as it is (the API refuses it). */
function decodePathPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

void main();
