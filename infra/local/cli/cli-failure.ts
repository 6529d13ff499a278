/**
 * How every CLI fails: one line, `error: <message>`, never a stack trace, whatever is thrown (a
 * bad flag, a missing file, an unknown id, a refused value). `BPS_DEBUG=1` prints the stack as well.
 */

/** Report whatever this CLI process throws as one line (see fail) and exit 1. */
export function speakOneLine(): void {
  const report = (error: unknown) => fail(oneLine(error));
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
}

function oneLine(error: unknown): string {
  if (process.env.BPS_DEBUG) console.error(error);
  const { code, path, message } = error as NodeJS.ErrnoException & { message?: string };
  if (code === 'ENOENT' && path) return `${path} does not exist`;
  if (code?.startsWith('ERR_PARSE_ARGS_'))
    return `${String(message).split('. ')[0]} (see the command's usage in docs/local-development.md)`;
  return String(message ?? error).split('\n')[0] ?? 'failed';
}

/** Print `error: <message>` and exit 1. */
export function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(1);
}
