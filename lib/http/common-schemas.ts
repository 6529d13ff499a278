import { z } from 'zod';

/** Path of every per-business operation. */
export const BusinessPathParams = z.strictObject({
  business_id: z.uuid().meta({ description: 'The business (tenant) id' }),
});
