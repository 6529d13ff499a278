import { type ParseArgsConfig, parseArgs } from 'node:util';

/**
 * How the long-running tools (`npm run synth`, `bench`, `load`) talk to their user: options parsed
 * by `node:util` `parseArgs`, `--help` printing the usage, a usage mistake answered with one line
 * and exit code 2 (the shell's convention for "wrong usage", apart from the tool's own failures),
 * and progress on stderr, so stdout keeps only the result.
 */

/** A command's name as typed (`npm run bench`) and its usage text, printed by `--help`. */
export interface Command {
  name: string;
  usage: string;
}

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** Parse the command line strictly; `--help` prints the usage and exits 0. */
export function parseCommandLine<const T extends ParseArgsConfig>(
  command: Command,
  config: T,
  args: string[] = process.argv.slice(2),
): ReturnType<typeof parseArgs<T>> {
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs({
      ...config,
      args,
      options: { ...config.options, ...HELP },
      strict: true,
    }) as ReturnType<typeof parseArgs<T>>;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code?.startsWith('ERR_PARSE_ARGS_')) usageError(command, message.split('. ')[0] ?? message);
    throw error;
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${command.usage.trim()}\n`);
    process.exit(0);
  }
  return parsed;
}

/** A mistake in how the command was called: one line on stderr naming `--help`, exit code 2. */
export function usageError(command: Command, message: string): never {
  console.error(`error: ${message} (${command.name} -- --help lists the options)`);
  process.exit(2);
}

/** A whole number of at least 1 given as an option's value, or a usage error naming the option. */
export function positiveWholeNumber(command: Command, option: string, value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1)
    usageError(command, `--${option} must be a whole number of at least 1`);
  return number;
}

/** One line of progress on stderr: what the tool is doing now. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}
