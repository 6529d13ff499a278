import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What a host page gives mountView (browser/mount-view.ts) to show one tool result in the view. */
export interface ViewLaunch {
  /** The host's name, as the view is told it. */
  hostName: string;
  html: string;
  csp: Record<string, string[]> | undefined;
  sandboxUrl: string;
  toolArguments: Record<string, unknown>;
  toolResult: CallToolResult;
  theme: 'light' | 'dark';
}
