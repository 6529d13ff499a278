import * as z from '#lib/validation/zod.ts';

/** Path of every per-business operation. */
export const BusinessPathParams = z.strictObject({
  business_id: z.meta(z.uuid(), { description: 'The business (tenant) id' }),
});
