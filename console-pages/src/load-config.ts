import { CONFIG_FILE, ConsolePagesConfig } from '../config.ts';
import { pagePath } from './site.ts';

/** This deployment's configuration (config.json beside index.html), or why it cannot be used. */
export async function loadConfig(): Promise<{ config: ConsolePagesConfig } | { problem: string }> {
  let body: unknown;
  try {
    const response = await fetch(pagePath(CONFIG_FILE), { cache: 'no-cache' });
    if (!response.ok) return { problem: `${CONFIG_FILE} answered ${response.status}` };
    body = await response.json();
  } catch (error) {
    return { problem: `${CONFIG_FILE} could not be read (${(error as Error).message})` };
  }
  const parsed = ConsolePagesConfig.safeParse(body);
  if (parsed.success) return { config: parsed.data };
  const issue = parsed.error.issues[0];
  return { problem: `${CONFIG_FILE} is not valid: ${issue?.path.join('.')}: ${issue?.message}` };
}
