import { h, render } from '../dom.ts';
import { pagePath } from '../site.ts';

export function notFoundPage(): void {
  render(
    'Not found',
    h('h1', {}, 'Not found'),
    h('p', {}, 'There is no page here. ', h('a', { href: pagePath('') }, 'Go to the home page'), '.'),
  );
}
