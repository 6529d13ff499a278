/**
 * What a local stack keeps in its state folder beside its data, so that a restart changes none of
 * it: the OAuth signing key (`oauth-signing-key.json`), the list cursors' HMAC key
 * (`cursor-secret`), the internal API keys and the record of the demo data (`secrets.json`); and
 * the credentials it writes from them at every start (`credentials.json`: the base URL, a token per
 * demo member, the keys), everything a script needs to drive the stack. The harness
 * (infra/local/harness.ts) gives the handlers the secrets through their environment.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigningKeys } from '#lib/oauth/new-signing-key.ts';
import type { DevIssuer } from './dev-issuer.ts';
import type { SeedRecord } from './seed.ts';

/** `.local/credentials.json`: everything a script needs to drive the local stack. */
export interface LocalCredentials {
  base_url: string;
  businesses: { id: string; name: string; tokens: { owner: string; editor: string; viewer: string } }[];
  platform_admin_token: string;
  internal_api_key: string;
  agent_key: string;
  ses_web_url: string;
}

/** `secrets.json`. */
interface SecretsFile {
  internal_api_key: string;
  /** A second accepted key, as during a rotation (the internal key's `previous`). */
  previous_internal_api_key?: string;
  seed?: SeedRecord;
}

export interface LocalSecrets {
  internalApiKey: string;
  /** A second accepted key, as during a rotation (the internal key's `previous`). */
  previousInternalApiKey: string;
  /** The OAuth signing key's file, read on every use (OAUTH_SIGNING_KEY_FILE). */
  oauthKeyFile: string;
  /** The HMAC key of list cursors (CURSOR_SECRET). */
  cursorSecret: string;
  /**
   * The demo data: seeded on the first start (through the handlers' code, so once their
   * environment is set), then read back.
   */
  seed(): Promise<SeedRecord>;
}

/** The state folder's secrets, each made on first use and kept. */
export async function loadLocalSecrets(stateDir: string): Promise<LocalSecrets> {
  const secretsFile = join(stateDir, 'secrets.json');
  const oauthKeyFile = join(stateDir, 'oauth-signing-key.json');
  if (!existsSync(oauthKeyFile)) {
    writeFileSync(oauthKeyFile, JSON.stringify(await generateSigningKeys()), { mode: 0o600 });
  }
  // The HMAC key of list cursors (CURSOR_SECRET): kept like the signing key, so cursors survive a restart.
  const cursorSecretFile = join(stateDir, 'cursor-secret');
  if (!existsSync(cursorSecretFile)) {
    writeFileSync(cursorSecretFile, randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  const secrets: SecretsFile = existsSync(secretsFile)
    ? JSON.parse(readFileSync(secretsFile, 'utf8'))
    : { internal_api_key: `ik_${randomBytes(24).toString('base64url')}` };
  const hadPreviousKey = secrets.previous_internal_api_key !== undefined;
  secrets.previous_internal_api_key ??= `ik_${randomBytes(24).toString('base64url')}`;
  return {
    internalApiKey: secrets.internal_api_key,
    previousInternalApiKey: secrets.previous_internal_api_key,
    oauthKeyFile,
    cursorSecret: readFileSync(cursorSecretFile, 'utf8').trim(),
    async seed() {
      if (!secrets.seed || !hadPreviousKey) {
        if (!secrets.seed) {
          const { seedDemoData } = await import('./seed.ts');
          secrets.seed = await seedDemoData();
        }
        writeFileSync(secretsFile, JSON.stringify(secrets, null, 2), { mode: 0o600 });
      }
      return secrets.seed;
    },
  };
}

/** Mints the demo members' and the platform admin's tokens and writes `credentials.json`. */
export async function writeLocalCredentials(
  stateDir: string,
  issuer: DevIssuer,
  seed: SeedRecord,
  stack: { baseUrl: string; internalApiKey: string; sesWebUrl: string },
): Promise<LocalCredentials> {
  const credentials: LocalCredentials = {
    base_url: stack.baseUrl,
    businesses: await Promise.all(
      seed.businesses.map(async (business) => ({
        id: business.id,
        name: business.name,
        tokens: {
          owner: await issuer.mintToken({ email: business.members.owner }),
          editor: await issuer.mintToken({ email: business.members.editor }),
          viewer: await issuer.mintToken({ email: business.members.viewer }),
        },
      })),
    ),
    platform_admin_token: await issuer.mintToken({ email: seed.platform_admin_email }),
    internal_api_key: stack.internalApiKey,
    agent_key: seed.agent_key,
    ses_web_url: stack.sesWebUrl,
  };
  writeFileSync(join(stateDir, 'credentials.json'), JSON.stringify(credentials, null, 2), { mode: 0o600 });
  return credentials;
}
