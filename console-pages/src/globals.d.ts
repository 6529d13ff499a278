/** The path the pages are served under, ending in '/': set by the build (build.ts). */
declare const CONSOLE_BASE_PATH: string;
