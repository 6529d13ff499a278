import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { PAGE_FILES } from '../console-pages/build.ts';
import { ROOT_DIR } from './local/paths.ts';

const PAGES_DIR = join(ROOT_DIR, 'console-pages');

/**
 * The console pages' script and style, built at synth the way the functions are bundled: CDK's
 * asset bundling runs our build locally (`npm run build:pages`, esbuild, no Docker), only for the
 * stacks being synthesized for deployment, so the template tests (which name no stack to bundle)
 * build nothing. The build is async and CDK's local bundler is not, hence a child process.
 * `index.html` is left out: each deployment writes its own, with the CSP that names its API.
 */
export function consolePagesAsset(): s3deploy.ISource {
  return s3deploy.Source.asset(PAGES_DIR, {
    // The pages also import from lib/: the hash of what was built, not of this folder.
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local build either succeeds or stops the synth.
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
      local: {
        tryBundle(outputDir) {
          const built = spawnSync(
            process.execPath,
            ['--import', 'tsx', join(PAGES_DIR, 'build-command.ts'), '--out', outputDir],
            { cwd: ROOT_DIR, stdio: ['ignore', 'ignore', 'inherit'] },
          );
          if (built.status !== 0) {
            throw new Error(`building the console pages failed (exit ${built.status ?? built.signal})`);
          }
          rmSync(join(outputDir, PAGE_FILES.shell));
          return true;
        },
      },
    },
  });
}
