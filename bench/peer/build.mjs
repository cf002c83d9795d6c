// Bundles the peer (bench/peer/entry.js) as a minified production ES module with esbuild.
import { build } from 'esbuild';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

export async function buildPeer(outDir = resolve(HERE, '..', 'out', 'peer')) {
  const outfile = join(outDir, 'peer.js');
  await build({
    entryPoints: [join(HERE, 'entry.js')],
    outfile,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await buildPeer());
}
