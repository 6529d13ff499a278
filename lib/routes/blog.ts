import { BlogAutoScheduleBody, BlogAutoScheduleData } from '#lib/blog/schemas.ts';
import { BusinessPathParams } from '#lib/http/common-schemas.ts';
import type { RouteDefinition } from '#lib/http/route.ts';

const path = '/api/v1/businesses/{business_id}/blog_posts/auto_schedule';

/** Blog auto-schedule: members read, holders write. */
export const blogRoutes = {
  getBlogAutoSchedule: {
    operationId: 'getBlogAutoSchedule',
    method: 'GET',
    path,
    handler: 'functions/blog/get-auto-schedule.ts',
    area: 'blog',
    summary: "Read the business's blog auto-schedule",
    auth: 'console',
    envelope: 'success',
    successStatus: 200,
    request: { params: BusinessPathParams },
    response: BlogAutoScheduleData,
    errors: [403, 404],
    permissions: { table: 'readwrite' },
  },
  putBlogAutoSchedule: {
    operationId: 'putBlogAutoSchedule',
    method: 'PUT',
    path,
    handler: 'functions/blog/put-auto-schedule.ts',
    area: 'blog',
    summary: 'Create or replace the blog auto-schedule (idempotent)',
    auth: 'console',
    envelope: 'success',
    successStatus: 200,
    request: { params: BusinessPathParams, body: BlogAutoScheduleBody },
    response: BlogAutoScheduleData,
    errors: [400, 403, 404, 409],
    permissions: { table: 'readwrite' },
  },
  deleteBlogAutoSchedule: {
    operationId: 'deleteBlogAutoSchedule',
    method: 'DELETE',
    path,
    handler: 'functions/blog/delete-auto-schedule.ts',
    area: 'blog',
    summary: 'Delete the blog auto-schedule',
    auth: 'console',
    envelope: 'success',
    successStatus: 204,
    request: { params: BusinessPathParams },
    errors: [403, 404],
    permissions: { table: 'readwrite' },
  },
} as const satisfies Record<string, RouteDefinition>;
