import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mountView } from '../../../infra/local/mcp-app-host/browser/mount-view.ts';
import type { ViewLaunch } from '../../../infra/local/mcp-app-host/view-launch.ts';

/**
 * The test host page: mountView (the shared web host of MCP Apps) with the view's tool calls going
 * to `window.callServerTool`, which the test provides (the host's MCP client, in Node). Bundled
 * for the browser by serve-host.ts.
 */

declare global {
  interface Window {
    callServerTool(params: CallToolRequest['params']): Promise<CallToolResult>;
    startView(launch: ViewLaunch): Promise<void>;
  }
}

window.startView = async (launch) => {
  await mountView(launch, (params) => window.callServerTool(params));
};
