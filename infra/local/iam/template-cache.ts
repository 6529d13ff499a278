import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT_DIR } from '../paths.ts';
import type { TemplateJson, TemplateSet } from './template-resolver.ts';

/**
 * The local synth's templates (local-synth.ts), cached until the code they are built from changes:
 * the infrastructure code, lib/ (the route rows and what they name), cdk.json, the stage files
 * and the installed CDK (package-lock.json). A cold synth takes about ten seconds; reading the
 * cache, a few milliseconds. The synth runs in a child process, so the harness never loads CDK.
 */

/** Where cached templates live: outside `.local/`, so that `npm run reset` keeps them. */
export const TEMPLATE_CACHE_DIR = join(ROOT_DIR, 'node_modules', '.cache', 'business-platform-synth');

/** What the synth reads: every source file under these folders, and these files. */
const SOURCE_DIRS = ['infra', 'lib', 'stages'];
const SOURCE_FILES = ['cdk.json', 'package-lock.json'];
/** The harness's own code does not shape the templates. */
const NOT_SOURCES = new Set([join('infra', 'local')]);

function sourceFiles(dir: string): string[] {
  const path = join(ROOT_DIR, dir);
  if (NOT_SOURCES.has(dir) || !existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) =>
      entry.isDirectory()
        ? sourceFiles(join(dir, entry.name))
        : /\.(ts|json)$/.test(entry.name)
          ? [join(dir, entry.name)]
          : [],
    );
}

/** A digest of every input of the synth: a change to any of them is a new cache entry. */
export function synthInputsDigest(): string {
  const hash = createHash('sha256');
  for (const file of [...SOURCE_DIRS.flatMap(sourceFiles), ...SOURCE_FILES]) {
    const path = join(ROOT_DIR, file);
    if (!existsSync(path)) continue;
    hash
      .update(`${relative(ROOT_DIR, path)}\0`)
      .update(readFileSync(path))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 32);
}

export interface CachedTemplates {
  templates: TemplateSet;
  /** Whether the cache had them (false: this call synthesized them). */
  cached: boolean;
  /** How long getting them took, in milliseconds. */
  ms: number;
}

/** Entries kept: a few trees (worktrees sharing node_modules, a branch and main) each keep theirs. */
const KEPT_ENTRIES = 4;

function pruneCache(cacheDir: string): void {
  const entries = readdirSync(cacheDir)
    .filter((name) => /^templates-[0-9a-f]+\.json$/.test(name))
    .map((name) => ({ path: join(cacheDir, name), mtime: statSync(join(cacheDir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of entries.slice(KEPT_ENTRIES)) rmSync(old.path, { force: true });
}

const templateSet = (json: Record<string, TemplateJson>): TemplateSet => new Map(Object.entries(json));

/**
 * The local templates of the current tree: from the cache, else synthesized now (and cached).
 * Concurrent callers may both synthesize on a cold cache; each writes its own file and renames it
 * into place, so a reader never sees half a file.
 */
export async function localTemplates(cacheDir = TEMPLATE_CACHE_DIR): Promise<CachedTemplates> {
  const startedAt = performance.now();
  const file = join(cacheDir, `templates-${synthInputsDigest()}.json`);
  if (existsSync(file)) {
    const templates = templateSet(JSON.parse(readFileSync(file, 'utf8')));
    return { templates, cached: true, ms: performance.now() - startedAt };
  }
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${file}.${process.pid}.${Date.now()}.partial`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/iam/local-synth.ts', partial], {
    cwd: ROOT_DIR,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) {
    rmSync(partial, { force: true });
    throw new Error(`The local synth of the app failed (exit ${code}):\n${stderr}`);
  }
  renameSync(partial, file);
  pruneCache(cacheDir);
  const templates = templateSet(JSON.parse(readFileSync(file, 'utf8')));
  return { templates, cached: false, ms: performance.now() - startedAt };
}
