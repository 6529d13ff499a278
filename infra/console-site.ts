import type { Construct } from 'constructs';
import { readParameter } from './parameters.ts';
import type { ServiceContext } from './service-context.ts';

/**
 * Where the console lives, as one stack sees it. The deployed pages' URL is the distribution's
 * unless they have their own name, and CloudFront chooses that name when it creates the
 * distribution: a stack reads it from the SSM parameter the pages stack publishes, at its own
 * deployment. Each getter reads only when asked, so a stack that needs none of it reads nothing.
 */
export interface ConsoleSite {
  /** The deployed pages' URL (= their origin), or undefined without `consolePages`. */
  readonly pagesUrl: string | undefined;
  /** `CONSOLE_URL`: setting `consoleUrl`, else the pages' URL. */
  readonly consoleUrl: string;
  /** The console API's CORS origins: setting `consoleOrigins` (or the console's origin), and the pages'. */
  readonly consoleOrigins: string[];
  /** Setting `mcpAllowedOrigins`, else the console's origin. */
  readonly mcpAllowedOrigins: string[];
}

export function consoleSite(scope: Construct, context: ServiceContext): ConsoleSite {
  const pagesUrl = (): string | undefined => {
    if (!context.consolePages) return undefined;
    const { domain } = context.consolePages;
    return domain ? `https://${domain.domainName}` : readParameter(scope, context.stage, 'console-pages-url');
  };
  const consoleUrl = (): string => {
    const url = context.consoleUrl ?? pagesUrl();
    // readServiceContext leaves consoleUrl unset only when the pages stand in for it.
    if (url === undefined) throw new Error('consoleUrl is unset and there are no console pages');
    return url;
  };
  const unique = (values: (string | undefined)[]) =>
    [...new Set(values)].filter((value): value is string => value !== undefined);
  return {
    get pagesUrl() {
      return pagesUrl();
    },
    get consoleUrl() {
      return consoleUrl();
    },
    get consoleOrigins() {
      return unique([...context.consoleOrigins, pagesUrl()]);
    },
    get mcpAllowedOrigins() {
      // Unset only when the console's URL is the pages' CloudFront URL, which is its own origin.
      return context.mcpAllowedOrigins ?? [consoleUrl()];
    },
  };
}
