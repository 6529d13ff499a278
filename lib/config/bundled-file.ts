import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { requiredEnv } from '#lib/config/env.ts';

/**
 * A file a function's bundle carries beside its code: written when the function is bundled
 * (infra/bundle-files.ts, for CDK and the bench alike) from the same sources, so work that depends
 * only on the sources is not repeated at every cold start. It is read from the function's
 * directory (`LAMBDA_TASK_ROOT`, which Lambda sets and the local harness points at a directory it
 * fills with the same files at start) on its first use in a container, never at load, and kept; a
 * failed read is tried again by the next request.
 */
export function bundledFile<T>(name: string, parse: (text: string) => T): () => Promise<T> {
  let content: Promise<T> | undefined;
  return () => {
    content ??= readFile(join(requiredEnv('LAMBDA_TASK_ROOT'), name), 'utf8')
      .then(parse)
      .catch((error: unknown) => {
        content = undefined;
        throw error;
      });
    return content;
  };
}
