import type { ConsolePagesConfig } from '../config.ts';
import { currentSession, type Session } from './session.ts';
import { startSignIn } from './sign-in.ts';
import { here } from './site.ts';

/** What every page is given: this deployment's configuration. */
export interface PageContext {
  config: ConsolePagesConfig;
}

export type Page = (context: PageContext) => void | Promise<void>;

/** The signed-in person, or null after sending the browser to sign in (back here afterwards). */
export function requireSession({ config }: PageContext): Session | null {
  const session = currentSession();
  if (!session) void startSignIn(config, here());
  return session;
}
