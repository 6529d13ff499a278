import { h } from './dom.ts';

/** Who vouches for an assistant (`client_source`), as a person must see it before trusting it. */
export type ClientSource = 'preregistered' | 'metadata_document' | 'dynamic';

/** The host of a metadata document's URL (the client_id), or the id itself. */
function hostOf(clientId: string): string {
  try {
    return new URL(clientId).host;
  } catch {
    return clientId;
  }
}

/** A paragraph saying who vouches for the client, styled as a warning unless an operator does. */
export function vouchedFor(source: string, clientId: string): HTMLParagraphElement {
  if (source === 'preregistered') {
    return h('p', { class: 'note' }, 'Registered by the operators of this service.');
  }
  if (source === 'metadata_document') {
    return h(
      'p',
      { class: 'warning' },
      'Vouched for only by ',
      h('strong', { class: 'host' }, hostOf(clientId)),
      ', the site that describes this assistant. Approve only if you trust that site.',
    );
  }
  return h(
    'p',
    { class: 'warning' },
    h('strong', {}, 'Nobody has verified who made this assistant.'),
    ' It registered itself, so its name is whatever it chose to call itself. Approve only if you started it yourself.',
  );
}

/** The same, in a few words, for the list of connected assistants. */
export function vouchedForInWords(source: string, clientId: string): string {
  if (source === 'preregistered') return 'the operators of this service';
  if (source === 'metadata_document') return `only ${hostOf(clientId)}, the site that describes it`;
  return 'nobody: it registered itself';
}
