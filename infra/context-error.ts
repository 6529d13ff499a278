/** A setting that stops synthesis: printed as one line by infra/app.ts. */
export class ContextError extends Error {}
