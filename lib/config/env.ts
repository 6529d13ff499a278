/**
 * Environment access for Lambda modules. Modules read what they need once, at load time, so a
 * missing setting fails the cold start loudly instead of surfacing as a confusing error later.
 */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`Missing required environment variable ${name}`);
  }
  return value;
}

export function optionalEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}
