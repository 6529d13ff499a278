import * as z from '#lib/validation/zod.ts';

/**
 * Probe: zod as our schemas use it (lib/validation/zod.ts: zod/mini with its English messages),
 * one small schema built and used.
 */
const Params = z.strictObject({ businessId: z.uuid(), faqId: z.uuid() });
export const handler = async () => ({ statusCode: 200, body: String(z.safeParse(Params, {}).success) });
