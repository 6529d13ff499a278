import type { ApiResponse } from './api.ts';

/**
 * The DynamoDB operations a request made, as the local harness reports them in
 * `x-local-dynamodb-operations`, sorted: calls sent together go out in either order.
 */
export const operations = (response: Pick<ApiResponse, 'headers'>) =>
  (response.headers.get('x-local-dynamodb-operations') ?? '').split(',').sort();
