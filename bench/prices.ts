/**
 * What one million calls of an operation cost, from what the bench measured: DynamoDB request units
 * and the function's billed duration. On-demand list prices, us-east-1, as published by AWS
 * (DynamoDB on-demand after the November 2024 reduction; Lambda arm64, which our functions use).
 */
export const PRICES = {
  region: 'us-east-1',
  /** USD per million write request units (on-demand, Standard table class). */
  dynamoWritePerMillionUnits: 0.625,
  /** USD per million read request units (on-demand, Standard table class). */
  dynamoReadPerMillionUnits: 0.125,
  /** USD per GB-second of Lambda duration, arm64 (first pricing tier). */
  lambdaPerGbSecond: 0.0000133334,
  /** USD per million Lambda requests. */
  lambdaPerMillionRequests: 0.2,
  /** Memory of every function (infra/service-function.ts). */
  lambdaMemoryGb: 1,
} as const;

export const PRICE_NOTE =
  `Prices: ${PRICES.region} on-demand list prices — DynamoDB $${PRICES.dynamoWritePerMillionUnits} per million write ` +
  `request units, $${PRICES.dynamoReadPerMillionUnits} per million read request units (Standard table class); ` +
  `Lambda arm64 $${PRICES.lambdaPerGbSecond} per GB-s at ${PRICES.lambdaMemoryGb * 1024} MB, billed per started ms, ` +
  `plus $${PRICES.lambdaPerMillionRequests} per million requests. API Gateway, data transfer, storage and the free tier are left out.`;

export interface MillionCallsCost {
  dynamo: number;
  lambda: number;
  total: number;
}

/** USD for one million calls that each consume these units and run this long (warm). */
export function costOfMillionCalls(
  readUnits: number,
  writeUnits: number,
  durationMs: number,
): MillionCallsCost {
  const dynamo =
    readUnits * PRICES.dynamoReadPerMillionUnits + writeUnits * PRICES.dynamoWritePerMillionUnits;
  const billedSeconds = Math.ceil(durationMs) / 1000;
  const lambda =
    1_000_000 * billedSeconds * PRICES.lambdaMemoryGb * PRICES.lambdaPerGbSecond +
    PRICES.lambdaPerMillionRequests;
  return { dynamo, lambda, total: dynamo + lambda };
}

/** Request units as the harness reports them: `read=<n>, write=<n>`. */
export function parseUnits(header: string | null): { readUnits: number; writeUnits: number } {
  const read = /read=([\d.]+)/.exec(header ?? '')?.[1];
  const write = /write=([\d.]+)/.exec(header ?? '')?.[1];
  return { readUnits: Number(read ?? Number.NaN), writeUnits: Number(write ?? Number.NaN) };
}
