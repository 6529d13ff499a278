/**
 * How long the consent page must hold the person's attention (visible and focused) before Approve
 * takes a click (attention-arming.ts): longer than the gap of a double-click, short enough that a
 * person reading the page never waits for it. Apart from the arming so that the browser test can
 * read it without the DOM's types.
 */
export const ARM_DELAY_MS = 1000;
