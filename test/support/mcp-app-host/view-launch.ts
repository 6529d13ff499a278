import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What the test host page (host-page.ts) is given to show one tool result in the view. */
export interface ViewLaunch {
  html: string;
  csp: Record<string, string[]> | undefined;
  sandboxUrl: string;
  toolArguments: Record<string, unknown>;
  toolResult: CallToolResult;
  theme: 'light' | 'dark';
}
