import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Where the stream poller keeps its checkpoint: the sequence number of the last record it has
 * fully processed, per stream. Lambda keeps it in the event source mapping; locally it is a file
 * in `.local/`, so a restarted `npm start` goes on after the last record it processed instead of
 * delivering the stream again (the stream survives restarts when the data does).
 */
export interface CheckpointStore {
  load(streamArn: string): string | undefined;
  save(streamArn: string, sequenceNumber: string): void;
}

/** Kept in this process only (an ephemeral stack, whose table goes when it stops). */
export function memoryCheckpoints(): CheckpointStore {
  const kept = new Map<string, string>();
  return {
    load: (streamArn) => kept.get(streamArn),
    save: (streamArn, sequenceNumber) => void kept.set(streamArn, sequenceNumber),
  };
}

/** Kept in a JSON file: `{ "<stream arn>": "<sequence number>" }`. */
export function fileCheckpoints(file: string): CheckpointStore {
  const read = (): Record<string, string> => {
    if (!existsSync(file)) return {};
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return {};
    }
  };
  return {
    load: (streamArn) => read()[streamArn],
    save: (streamArn, sequenceNumber) => {
      writeFileSync(file, JSON.stringify({ ...read(), [streamArn]: sequenceNumber }, null, 2));
    },
  };
}
