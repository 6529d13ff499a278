import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bundledChromium from '@sparticuz/chromium';
import { type Browser, chromium } from 'playwright-core';

/**
 * The headless Chromium the browser tests drive through playwright-core, which `npm install`
 * alone provides on Linux x64: CHROMIUM_PATH when set, else the build @sparticuz/chromium ships
 * inside its npm package (Linux x64 only), else a system /usr/bin/chromium. When none is there or
 * it does not start, the error says in one line what to install or set.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = await chromiumExecutable();
  try {
    return await chromium.launch({
      executablePath,
      // No network here: without these Chromium keeps opening connections it will never get.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  } catch (error) {
    // Playwright's message runs to many lines of browser log; the test output gets one line that
    // says what to do.
    const message = error instanceof Error ? error.message : String(error);
    const missingLibrary = /error while loading shared libraries: (\S+?):/.exec(message)?.[1];
    const remedy = missingLibrary
      ? `it needs the system library ${missingLibrary}: install it, or set CHROMIUM_PATH to another Chromium binary`
      : `${message.split('\n')[0]}: set CHROMIUM_PATH to a Chromium binary that starts here`;
    throw new Error(`Chromium (${executablePath}) did not start: ${remedy}.`);
  }
}

const systemChromium = '/usr/bin/chromium';

async function chromiumExecutable(): Promise<string> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return configured;
  if (process.platform === 'linux' && process.arch === 'x64') return unpackBundledChromium();
  if (existsSync(systemChromium)) return systemChromium;
  throw new Error(
    `The browser tests need Chromium: @sparticuz/chromium ships one for Linux x64 only; install Chromium and set CHROMIUM_PATH to its binary.`,
  );
}

/**
 * @sparticuz/chromium unpacks its brotli-packed binary into os.tmpdir() and reuses whatever it
 * finds there by name, whatever its version or state. Pointing TMPDIR at a fresh directory for the
 * call, then renaming that directory into a cache keyed by the package's version, gives every
 * version its own complete copy: a half-unpacked one never has the cache's name, and a second
 * process unpacking at the same time loses the rename and uses the winner's.
 */
async function unpackBundledChromium(): Promise<string> {
  const packageDir = join(dirname(fileURLToPath(import.meta.resolve('@sparticuz/chromium'))), '..');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const cacheRoot = join(packageDir, '..', '..', '.cache');
  const cached = join(cacheRoot, `sparticuz-chromium-${version}`);
  const executable = join(cached, 'chromium');
  if (existsSync(executable)) return executable;

  mkdirSync(cacheRoot, { recursive: true });
  const staging = mkdtempSync(join(cacheRoot, 'sparticuz-chromium-unpacking-'));
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = staging;
  try {
    await bundledChromium.executablePath();
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  } finally {
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
  }
  try {
    renameSync(staging, cached);
  } catch (error) {
    // Another process finished first: its copy is as good as this one.
    if (!existsSync(executable)) throw error;
    rmSync(staging, { recursive: true, force: true });
  }
  return executable;
}
