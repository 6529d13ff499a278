/**
 * What a client_name may hold. The consent page shows it to a person as "<name> wants to work on
 * your business data", so a name must not be able to lie about itself on screen: no control
 * characters (C0, DEL, C1: line breaks, escapes), no line or paragraph separators, and no
 * invisible formatting characters: above all the bidirectional ones (U+061C, U+200E/F,
 * U+202A–202E, U+2066–2069), which reorder what follows them so that "Acme" + U+202E + "moc.live"
 * shows as another name, and with them the zero-width and Unicode tag characters (U+E0000–E007F:
 * text an assistant reads and a person does not see). Zero-width (non-)joiners stay: scripts and
 * emoji need them.
 */
export const MAX_CLIENT_NAME_LENGTH = 100;

/** Cc (C0, DEL, C1), Zl, Zp, lone surrogates, and Cf except U+200C ZWNJ and U+200D ZWJ. */
const UNSHOWABLE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}]|(?![\u200C\u200D])\p{Cf}/u;

/** Why a client_name cannot be shown on the consent page, or undefined when it can. */
export function clientNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'client_name must show something: it is blank';
  if ([...name].length > MAX_CLIENT_NAME_LENGTH) {
    return `client_name must be at most ${MAX_CLIENT_NAME_LENGTH} characters`;
  }
  const found = UNSHOWABLE.exec(name)?.[0];
  if (found !== undefined) {
    const codePoint = (found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    return `client_name must not contain control or invisible formatting characters (found U+${codePoint})`;
  }
  return undefined;
}
