/** Lambda's limit on a function's name. */
const MAX_FUNCTION_NAME_LENGTH = 64;

/**
 * What every function name of a stage starts with. Names CloudFormation generates begin with the
 * stack's name but are cut to fit Lambda's 64 characters, so for a longer stage they no longer
 * hold it; the names we give always start with this, and the dashboard finds the stage's functions
 * by it (infra/dashboard.ts). Short, so that the longest stage (20 characters) leaves room for the
 * longest operation id.
 */
export const functionNamePrefix = (stage: string): string => `bp-${stage}-`;

/** A function's name: the stage's prefix and what the function does (an operation id, a trigger). */
export function functionName(stage: string, name: string): string {
  const full = `${functionNamePrefix(stage)}${name}`;
  if (full.length > MAX_FUNCTION_NAME_LENGTH) {
    throw new Error(
      `the function name ${full} is longer than Lambda's ${MAX_FUNCTION_NAME_LENGTH} characters: shorten the name or the stage`,
    );
  }
  return full;
}
