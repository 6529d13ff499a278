/** What the harness tells the local review host page (dev-review-host.ts writes it into the page). */
export interface ReviewHostConfig {
  /** The service's issuer: its authorization server and `<issuer>/mcp`. */
  issuer: string;
  /** The pre-registered OAuth client the page connects as. */
  clientId: string;
  /** Where the authorization code comes back: the page itself. */
  redirectUri: string;
  /** The scopes it asks for. */
  scope: string;
  /** The page's path. */
  pagePath: string;
  /** The sandbox page, on the other loopback origin. */
  sandboxUrl: string;
  /** The host's name, as the MCP server and the view are told it. */
  hostName: string;
}
