import { strictObject, uuid } from 'zod';

/**
 * Probe: the same schema in zod classic, which the functions once used (methods on
 * every schema, so a bundle keeps every schema type): for comparison.
 */
const Params = strictObject({ businessId: uuid(), faqId: uuid() });
export const handler = async () => ({ statusCode: 200, body: String(Params.safeParse({}).success) });
