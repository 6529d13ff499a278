import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ViewLaunch } from '../view-launch.ts';

/**
 * The web host's half of MCP Apps (2026-01-26, "Sandbox proxy"), as small as the specification
 * allows: an iframe of the sandbox page (another origin), an ext-apps AppBridge talking to the view
 * through it, the tool's input and result sent once the view is initialized, and the view's own
 * tool calls handed to `callTool` (the host's MCP client). Used by the local review host and by
 * the browser tests' host page.
 */
export async function mountView(
  launch: ViewLaunch,
  callTool: (params: CallToolRequest['params']) => Promise<CallToolResult>,
  container: HTMLElement = document.body,
): Promise<AppBridge> {
  const iframe = document.createElement('iframe');
  iframe.title = 'Review proposed changes';
  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  iframe.style.cssText = 'display:block;width:100%;height:200px;border:0';
  container.append(iframe);
  const bridge = new AppBridge(
    null,
    { name: launch.hostName, version: '1.0.0' },
    { serverTools: {}, logging: {} },
    { hostContext: { theme: launch.theme, platform: 'web', displayMode: 'inline' } },
  );
  bridge.oncalltool = (params) => callTool(params);
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
  return bridge;
}
