import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { bundlePageScript } from '../../../infra/local/mcp-app-host/bundle-page-script.ts';
import { sandboxPage, sandboxPageHeaders } from '../../../infra/local/mcp-app-host/sandbox-page.ts';

/**
 * Serves the test host (host-page.ts, bundled) at http://127.0.0.1:<port>/host and its sandbox
 * page at http://localhost:<port>/sandbox: two loopback origins, as a web host of MCP Apps must
 * use. Returns both URLs and a stop function.
 */
export async function serveMcpAppHost() {
  const hostScript = await bundlePageScript(fileURLToPath(new URL('./host-page.ts', import.meta.url)));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/host') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Test host</title><style>body{margin:0}</style></head><body><script>${hostScript}</script></body></html>`,
      );
    } else if (url.pathname === '/sandbox') {
      const hostOrigin = url.searchParams.get('host') ?? '';
      response.writeHead(200, sandboxPageHeaders(hostOrigin));
      response.end(sandboxPage(hostOrigin));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const hostOrigin = `http://127.0.0.1:${port}`;
  return {
    hostUrl: `${hostOrigin}/host`,
    sandboxUrl: `http://localhost:${port}/sandbox?host=${encodeURIComponent(hostOrigin)}`,
    sandboxOrigin: `http://localhost:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
