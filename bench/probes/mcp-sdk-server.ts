import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/** Probe: the MCP SDK's server and its web-standard Streamable HTTP transport, loaded, no tools. */
const parts = [McpServer, WebStandardStreamableHTTPServerTransport];
export const handler = async () => ({ statusCode: 200, body: String(parts.length) });
