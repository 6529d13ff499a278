/** Probe: nothing at all; what a fresh process pays to load and call any bundle. */
export const handler = async () => ({ statusCode: 200 });
