import { inject } from 'vitest';

// Point lib/ (used by tests to arrange tenants) at the harness's emulators before any test imports it.
Object.assign(process.env, inject('harness').env, { POWERTOOLS_LOG_LEVEL: 'ERROR' });
