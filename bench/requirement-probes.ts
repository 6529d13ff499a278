/** A function measured step by step against the floor (bench/cold-section.ts). */
export interface RequirementProbe {
  operationId: string;
  /** Its DynamoDB calls alone, in the floor's bundle (answers 200 with no event). */
  calls: { entry: string; what: string };
  /** Its work with nothing of the pipeline around it, answering its sample as the function does. */
  entry: string;
  work: string;
}

/**
 * Functions measured beside their work done with nothing of the pipeline around it (bench/probes):
 * how near the floor the requirements alone let an agent read, change and create get.
 */
export const REQUIREMENT_PROBES: readonly RequirementProbe[] = [
  {
    operationId: 'getFaq',
    calls: { entry: 'bench/probes/floor-batch-get.ts', what: 'one BatchGetItem of two keys' },
    entry: 'bench/probes/agent-read-bare.ts',
    work: "getFaq's agent key check, zod validation of the path, read and JSON answer",
  },
  {
    operationId: 'updateFaq',
    calls: {
      entry: 'bench/probes/floor-write.ts',
      what: 'a BatchGetItem of two keys, then a TransactWriteItems of two actions',
    },
    entry: 'bench/probes/agent-write-bare.ts',
    work: "updateFaq's agent key check, zod validation of the path and body, read, transaction and JSON answer",
  },
  {
    operationId: 'createFaq',
    calls: {
      entry: 'bench/probes/floor-create.ts',
      what: 'a GetItem, then a TransactWriteItems of four actions',
    },
    entry: 'bench/probes/agent-create-bare.ts',
    work: "createFaq's agent key check, zod validation of the path and body, transaction and JSON answer, with the Idempotency-Key module loaded",
  },
];
