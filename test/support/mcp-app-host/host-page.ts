import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ViewLaunch } from './view-launch.ts';

/**
 * A web host of MCP Apps, as small as the specification allows (MCP Apps 2026-01-26, "Sandbox
 * proxy"): the view runs inside a sandbox page of another origin, which this page talks to through
 * an AppBridge. Tool calls of the view go to `window.callServerTool`, which the test provides (the
 * host's MCP client, in Node). Bundled for the browser by the test.
 */

declare global {
  interface Window {
    callServerTool(params: CallToolRequest['params']): Promise<CallToolResult>;
    startView(launch: ViewLaunch): Promise<void>;
  }
}

window.startView = async (launch) => {
  const iframe = document.createElement('iframe');
  iframe.title = 'Review proposed changes';
  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  iframe.style.cssText = 'display:block;width:100%;height:200px;border:0';
  document.body.append(iframe);
  const bridge = new AppBridge(
    null,
    { name: 'bps-test-host', version: '1.0.0' },
    { serverTools: {}, logging: {} },
    { hostContext: { theme: launch.theme, platform: 'web', displayMode: 'inline' } },
  );
  bridge.oncalltool = (params) => window.callServerTool(params);
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  bridge.onsandboxready = () => {
    void bridge.sendSandboxResourceReady({ html: launch.html, ...(launch.csp ? { csp: launch.csp } : {}) });
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  const frame = iframe.contentWindow as Window;
  await bridge.connect(new PostMessageTransport(frame, frame));
  iframe.src = launch.sandboxUrl;
  await initialized;
  await bridge.sendToolInput({ arguments: launch.toolArguments });
  await bridge.sendToolResult(launch.toolResult);
};
