import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (pure logic, no services) and `integration` (the real handlers behind the
 * local harness, against DynamoDB Local, s3rver and aws-ses-v2-local started on free ports).
 */
export default defineConfig({
  test: {
    // Structured request logs are for operators; in test output they only hide the results.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
    // One file at a time: the machine has 2 cores, and the concurrency and timeout tests measure
    // the service, not contention with the bundle builds of another file.
    fileParallelism: false,
    projects: [
      {
        extends: true,
        // Synthesizing the CDK app in a hook takes ~10 s alone, more on a busy machine.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Each file's temporary files (CDK's cloud assemblies among them) go with the file.
          setupFiles: ['test/support/file-temp-dir.ts'],
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/file-temp-dir.ts', 'test/support/integration-env.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
