// Transfer size of one file as a server would send it: raw, gzip (level 9) and brotli (quality 11,
// generic mode for wasm, text mode otherwise). Shared by `npm run size` and the benchmark.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export function transferSize(buf, file) {
  return {
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    brotli: brotliCompressSync(buf, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: buf.length,
        [constants.BROTLI_PARAM_MODE]: file.endsWith('.wasm') ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
      },
    }).length,
  };
}
