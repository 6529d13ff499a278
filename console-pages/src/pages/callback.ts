import { errorBox, h, render, showError } from '../dom.ts';
import type { PageContext } from '../page.ts';
import { finishSignIn } from '../sign-in.ts';
import { pagePath, signInPath } from '../site.ts';

/** `auth/callback`: where the identity provider sends the browser back with a code. */
export async function callbackPage({ config }: PageContext): Promise<void> {
  render('Signing in', h('p', { class: 'muted' }, 'Signing you in…'));
  const result = await finishSignIn(config, new URLSearchParams(window.location.search));
  if ('next' in result) {
    window.location.replace(result.next);
    return;
  }
  const box = errorBox();
  render('Sign-in failed', h('h1', {}, 'Sign-in failed'), box);
  showError(box, 'Could not sign you in.', result.problem, {
    text: 'Sign in again',
    href: signInPath(pagePath('')),
  });
}
