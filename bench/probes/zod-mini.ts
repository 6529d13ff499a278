import * as z from 'zod/mini';

/** Probe: the same schema in zod/mini, the functional build of zod 4 without methods on schemas. */
const Params = z.strictObject({ businessId: z.uuid(), faqId: z.uuid() });
export const handler = async () => ({ statusCode: 200, body: String(Params.safeParse({}).success) });
