import * as z from '#lib/validation/zod.ts';

/** Probe: zod as our schemas use it (lib/validation/zod.ts), one small schema built and used. */
const Params = z.strictObject({ businessId: z.uuid(), faqId: z.uuid() });
export const handler = async () => ({ statusCode: 200, body: String(Params.safeParse({}).success) });
