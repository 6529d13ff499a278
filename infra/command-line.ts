import { createInterface } from 'node:readline/promises';
import { type ParseArgsConfig, parseArgs } from 'node:util';

/**
 * How every tool (`npm start`, `npm run reset`, `token`, `agent-key`, `synth`, `bench`, …) talks to
 * its user: options parsed by `node:util` `parseArgs`, strictly; `-h`/`--help` printing the usage
 * and exiting 0 before the tool does anything; a usage mistake answered with one line naming it
 * and the usage line, exit code 2 (the shell's convention for "wrong usage", apart from the tool's
 * own failures, exit 1); and progress on stderr, so stdout keeps only the result. A tool with
 * sub-commands (`agent-key create|list|revoke`) lists them on `--help` and when none or an unknown
 * one is named. What destroys or rotates asks first on a terminal and needs `--yes` elsewhere.
 */

/**
 * A command's name as typed (`npm run bench`) and its usage text, printed by `--help`. The usage's
 * first line is the synopsis (`Usage: npm run bench -- [--only SECTIONS] …`), repeated under a
 * usage mistake; the text should end with an example.
 */
export interface Command {
  name: string;
  usage: string;
}

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

type Parsed<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/** Parse the command line strictly; `--help` prints the usage and exits 0. */
export function parseCommandLine<const T extends ParseArgsConfig>(
  command: Command,
  config: T,
  args: string[] = process.argv.slice(2),
): Parsed<T> {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs({
      ...config,
      args,
      options: { ...config.options, ...HELP },
      strict: true,
    }) as Parsed<T>;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    // Help wins over a mistake elsewhere on the line: `--help` always answers.
    if (args.includes('--help') || args.includes('-h')) printHelp(command);
    if (code?.startsWith('ERR_PARSE_ARGS_')) usageError(command, message.split('. ')[0] ?? message);
    throw error;
  }
  if ((parsed.values as { help?: boolean }).help) printHelp(command);
  return parsed;
}

function printHelp(command: Command): never {
  process.stdout.write(`${command.usage.trim()}\n`);
  process.exit(0);
}

/** One sub-command of a tool: a summary for the list, the options it takes, its arguments' names. */
export interface SubCommand {
  summary: string;
  /** The names of the tool's options this sub-command takes (others are refused). */
  options?: readonly string[];
  /** Its required positional arguments, by name (`KEY_ID`); none when absent. */
  args?: readonly string[];
}

/**
 * Parse `<sub-command> [options] [args]`: the tool's options are declared once, for all its
 * sub-commands; each sub-command names those it takes and its arguments. `--help` anywhere prints
 * the tool's usage; a missing or unknown sub-command, an option it does not take, a missing or an
 * extra argument is a usage mistake (exit 2), the first two listing the sub-commands.
 */
export function parseSubCommandLine<const T extends ParseArgsConfig, const S extends string>(
  command: Command,
  subCommands: Record<S, SubCommand>,
  config: T,
  args: string[] = process.argv.slice(2),
): { subCommand: S; values: Parsed<T>['values']; args: string[] } {
  const names = Object.keys(subCommands) as S[];
  const parsed = parseCommandLine(command, { ...config, allowPositionals: true, tokens: true }, args);
  const [first, ...rest] = parsed.positionals;
  const list = `the commands are ${names.join(', ')}`;
  if (first === undefined) usageError(command, `name a command: ${list}`);
  if (!(names as string[]).includes(first)) usageError(command, `unknown command '${first}'; ${list}`);
  const subCommand = first as S;
  const { options: takes = [], args: wants = [] } = subCommands[subCommand];
  for (const token of parsed.tokens ?? []) {
    if (token.kind === 'option' && token.name !== 'help' && !takes.includes(token.name))
      usageError(command, `${subCommand} takes no --${token.name}`);
  }
  const missing = wants[rest.length];
  if (missing !== undefined) usageError(command, `${subCommand} needs ${missing}`);
  if (rest.length > wants.length)
    usageError(command, `${subCommand}: unexpected argument '${rest[wants.length]}'`);
  return { subCommand, values: parsed.values, args: rest };
}

/**
 * A mistake in how the command was called: one line on stderr naming it and `--help`, then the
 * usage line; exit code 2.
 */
export function usageError(command: Command, message: string): never {
  console.error(`error: ${message} (${command.name} -- --help lists the options)`);
  console.error(synopsis(command));
  process.exit(2);
}

/** The usage's first line: `Usage: npm run token -- --email E [--hours N]`. */
export function synopsis(command: Command): string {
  return command.usage.trim().split('\n')[0] ?? command.name;
}

/** A whole number of at least 1 given as an option's value, or a usage error naming the option. */
export function positiveWholeNumber(command: Command, option: string, value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1)
    usageError(command, `--${option} must be a whole number of at least 1`);
  return number;
}

/**
 * Before what destroys or rotates: on a terminal, ask (`what` is the question's subject, e.g.
 * "delete .local/"), and stop with exit 1 unless the answer is yes; elsewhere (a script, a pipe)
 * `--yes` is required, and its absence is a usage mistake. `--yes` skips the question.
 */
export async function confirm(command: Command, what: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY) usageError(command, `this would ${what}: pass --yes to confirm`);
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await terminal.question(`This will ${what}. Continue? [y/N] `);
  terminal.close();
  if (!/^y(es)?$/i.test(answer.trim())) {
    console.error('Nothing done.');
    process.exit(1);
  }
}

/** One line of progress on stderr: what the tool is doing now. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}
