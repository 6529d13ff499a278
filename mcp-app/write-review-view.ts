import { writeReviewView } from './build-review-view.ts';

/**
 * `tsx mcp-app/write-review-view.ts DIR`: writes the review view's page into DIR. CDK runs it
 * after bundling the tool server's function, so the page ships beside the function's code.
 */
const directory = process.argv[2];
if (!directory) {
  console.error('usage: write-review-view.ts DIRECTORY');
  process.exit(1);
}
console.error(`review view: ${await writeReviewView(directory)}`);
