import type { ConsolePagesConfig } from '../config.ts';
import { h } from './dom.ts';
import { currentSession } from './session.ts';
import { signOut } from './sign-in.ts';
import { here, signInPath } from './site.ts';

/** The header's right side: who is signed in and Sign out, or a Sign in link. */
export function renderWho(config: ConsolePagesConfig, offerSignIn: boolean): void {
  const box = document.getElementById('who');
  if (!box) return;
  const session = currentSession();
  if (!session) {
    box.replaceChildren(offerSignIn ? h('a', { href: signInPath(here()) }, 'Sign in') : '');
    return;
  }
  const button = h('button', { type: 'button', class: 'link' }, 'Sign out');
  button.addEventListener('click', () => signOut(config));
  box.replaceChildren(h('span', {}, session.name), ' ', button);
}
