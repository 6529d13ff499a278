import { SCOPE_DESCRIPTIONS } from '#lib/oauth/settings.ts';
import { h } from './dom.ts';

/** A scope in words, with its name: the service's own wording where it knows the scope. */
export function scopeItem(name: string, description?: string): HTMLLIElement {
  const words = description ?? (SCOPE_DESCRIPTIONS as Record<string, string>)[name] ?? name;
  return h('li', {}, h('span', {}, words), ' ', h('code', {}, name));
}
