/**
 * Building the pages: elements made in script, text always through textContent (never parsed as
 * HTML), so nothing the API or a URL says can become markup.
 */
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') node.className = String(value);
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children)
    if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

/** Replace the page's main content and title. */
export function render(title: string, ...content: Child[]): HTMLElement {
  document.title = `${title} · Business Platform`;
  const main = document.getElementById('main') as HTMLElement;
  main.replaceChildren();
  for (const child of content) if (child) main.append(child);
  return main;
}

/** An error box (role alert) filled with a headline, the service's own message and a link. */
export function showError(
  box: HTMLElement,
  headline: string,
  detail?: string,
  link?: { text: string; href: string },
): void {
  box.replaceChildren(h('strong', {}, headline));
  if (detail && detail !== headline) box.append(' ', h('span', {}, detail));
  if (link) box.append(' ', h('a', { href: link.href }, link.text));
  box.hidden = false;
}

export const errorBox = () => h('div', { class: 'error', role: 'alert', hidden: true });

/** A date as the reader's local time, with the exact value the API sent. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : `${date.toLocaleString()} (${iso})`;
}
