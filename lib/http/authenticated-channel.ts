import { channel } from 'node:diagnostics_channel';

/**
 * The diagnostics channel on which the pipeline announces that a request's caller is
 * authenticated. Nothing in the service subscribes; a local instrument does (the harness splits
 * a request's DynamoDB calls into the credential check's and the operation's). Publishing to a
 * channel without subscribers does nothing.
 */
export const AUTHENTICATED_CHANNEL = 'business-platform:authenticated';

export const authenticatedChannel = channel(AUTHENTICATED_CHANNEL);
