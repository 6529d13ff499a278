/**
 * A button that takes no click until the page has held the person's attention for a moment: the
 * document visible and focused for ARM_DELAY_MS without a break. A page raised under the pointer
 * (another site's "double-click here" lure that opens it between the two clicks, or a window
 * switched in while the person was clicking elsewhere) would otherwise take a click meant for
 * something else. Hidden or unfocused, even for an instant, starts the wait again.
 */
import { ARM_DELAY_MS } from './attention-delay.ts';

export interface Arming {
  /** Whether the page has held attention long enough (the button may still be off for other reasons). */
  armed(): boolean;
  /** Set the button's state again, after `allowed` may have changed its answer. */
  refresh(): void;
}

/** Keep `button` disabled unless `allowed()` and the page has held attention for ARM_DELAY_MS. */
export function armAfterAttention(button: HTMLButtonElement, allowed: () => boolean): Arming {
  let armed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = () => {
    button.disabled = !(armed && allowed());
  };
  const restart = () => {
    clearTimeout(timer);
    armed = false;
    refresh();
    if (document.visibilityState !== 'visible' || !document.hasFocus()) return;
    timer = setTimeout(() => {
      armed = true;
      refresh();
    }, ARM_DELAY_MS);
  };
  document.addEventListener('visibilitychange', restart);
  window.addEventListener('focus', restart);
  window.addEventListener('blur', restart);
  restart();
  return { armed: () => armed, refresh };
}
