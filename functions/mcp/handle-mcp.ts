import { mcpAuth } from '#lib/auth/assistant-token.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import { handleMcpRequest } from '#lib/mcp/tool-server.ts';
import { mcpRoutes } from '#lib/routes/mcp.ts';

export const handler = httpHandler(mcpRoutes.handleMcp, mcpAuth, async ({ headers, body, principal }) => {
  const response = await handleMcpRequest(principal, headers, body);
  return { raw: { statusCode: response.statusCode, body: response.body }, headers: response.headers };
});
