// The npm package as an installer gets it, shared by the suites that install it (package, frameworks).
//
//   const { tarball, files } = await packedTarball();   // path of the .tgz, and the paths it holds
//   await installTarball(projectDir, tarball);          // into an existing project, lockfile untouched
//
// `npm pack` runs prepack, a release build. So that one `npm test` builds once rather than once per
// suite, the tarball is kept in target/e2e-pack/ beside a digest of every file that goes into it
// (sources, i18n, manifests, README, build script) and reused while that digest holds.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './harness.mjs';

const run = promisify(execFile);
export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const PACK_DIR = join(repoRoot, 'target', 'e2e-pack');
const INPUTS = ['src', 'crates/core/src', 'crates/core/build.rs', 'crates/core/Cargo.toml', 'i18n', 'Cargo.toml',
  'Cargo.lock', 'package.json', 'README.md', 'LICENSE', 'custom-elements.json', 'scripts/build.mjs'];

async function filesUnder(path) {
  const full = join(repoRoot, path);
  if (!existsSync(full)) return [];
  const entries = await readdir(full, { withFileTypes: true }).catch(() => null);
  if (entries === null) return [path]; // a file
  const nested = await Promise.all(entries.map((e) => filesUnder(join(path, e.name))));
  return nested.flat();
}

async function inputsDigest() {
  const hash = createHash('sha256');
  const files = (await Promise.all(INPUTS.map(filesUnder))).flat().sort();
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(await readFile(join(repoRoot, file)));
  }
  return hash.digest('hex');
}

/** Packs the repository (prepack builds dist/) unless an identical pack is already kept. */
export async function packedTarball() {
  const digest = await inputsDigest();
  const recordFile = join(PACK_DIR, 'pack.json');
  const kept = existsSync(recordFile) ? JSON.parse(await readFile(recordFile, 'utf8')) : null;
  if (kept?.digest === digest && existsSync(kept.tarball)) return kept;

  await rm(PACK_DIR, { recursive: true, force: true });
  await mkdir(PACK_DIR, { recursive: true });
  const { stdout } = await run(NPM, ['pack', '--json', '--pack-destination', PACK_DIR], {
    cwd: repoRoot,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_loglevel: 'error' },
  });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  const record = {
    digest,
    tarball: join(PACK_DIR, packed.filename),
    files: packed.files.map((file) => file.path).sort(),
  };
  await writeFile(recordFile, JSON.stringify(record, null, 2));
  return record;
}

/**
 * Installs the tarball into `project` (which has its own package.json) the way an installer would,
 * without saving it to package.json or the lockfile, so `npm ci` keeps working there. The package has
 * no dependencies, so this needs no registry.
 */
export async function installTarball(project, tarball) {
  const lockFile = join(project, 'package-lock.json');
  const lockBefore = existsSync(lockFile) ? await readFile(lockFile, 'utf8') : null;
  await run(NPM, ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--offline', tarball], {
    cwd: project,
    env: { ...process.env, npm_config_loglevel: 'error' },
  });
  const lockAfter = existsSync(lockFile) ? await readFile(lockFile, 'utf8') : null;
  if (lockAfter !== lockBefore) throw new Error(`installing the tarball rewrote ${relative(repoRoot, lockFile)}`);
  return join(project, 'node_modules', 'koder-mcp-elicitation');
}
