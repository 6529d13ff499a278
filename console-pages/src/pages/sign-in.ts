import { h, render } from '../dom.ts';
import type { PageContext } from '../page.ts';
import { forgetToken } from '../session.ts';
import { startSignIn } from '../sign-in.ts';

/**
 * `sign-in?next=…`: off to the identity provider's sign-in page, back to `next` afterwards. Any
 * token of this tab is forgotten first, so "sign in as someone else" means it.
 */
export async function signInPage({ config }: PageContext): Promise<void> {
  forgetToken();
  render('Sign in', h('p', { class: 'muted' }, 'Taking you to sign-in…'));
  await startSignIn(config, new URLSearchParams(window.location.search).get('next') ?? '');
}
