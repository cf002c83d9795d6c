// The repository's markdown holds together: every relative link and #anchor between its files
// resolves, the README stays short and links every guide in docs/, its Layout names only paths
// that exist, and the code examples parse, or run where they are marked to.
//
// The convention for examples (docs/develop.md, "Examples in the docs"):
//   ```js, ```jsx, ```ts, ```tsx   parsed by esbuild: a syntax error fails
//   ```json                        parsed by JSON.parse
//   ```js run                      run by Node as a module from the repository root, where
//                                  "koder-mcp-elicitation" resolves to the built dist/ (its server
//                                  entry); it must exit 0
//   ```sh run                      run by bash from the repository root, with target/debug on PATH
//                                  (the relay's binary is built before this suite); it must exit 0
// Other blocks (html, css, vue, rust, nginx, sh without `run`, ...) are text for people.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const README_MAX_LINES = 400;

/** Directories whose markdown is not the project's own, or not in the repository. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules', 'target', 'dist', 'pkg', 'artifacts', '.venv', 'out']);
const VENDORED = [join('crates', 'core', 'tests', 'fixtures')];

function markdownFiles(dir = ROOT) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (SKIPPED_DIRS.has(entry.name) || VENDORED.includes(relative(ROOT, path))) continue;
      found.push(...markdownFiles(path));
    } else if (entry.name.endsWith('.md')) {
      found.push(path);
    }
  }
  return found.sort();
}

/**
 * One markdown file split into prose lines (code spans blanked) and fenced code blocks, each with
 * its line number.
 */
function parseMarkdown(text) {
  const prose = [];
  const blocks = [];
  let fence = null;
  text.split('\n').forEach((line, index) => {
    const lineNumber = index + 1;
    if (fence) {
      const close = line.match(/^\s*(`{3,}|~{3,})\s*$/);
      if (close && close[1][0] === fence.marker[0] && close[1].length >= fence.marker.length) {
        blocks.push(fence.block);
        fence = null;
      } else {
        fence.block.lines.push(line.slice(Math.min(fence.indent, line.length - line.trimStart().length)));
      }
      return;
    }
    const open = line.match(/^(\s*)(`{3,}|~{3,})\s*([^`]*)$/);
    if (open) {
      const [language = '', ...flags] = open[3].trim().split(/\s+/);
      fence = { marker: open[2], indent: open[1].length, block: { language, flags, line: lineNumber, lines: [] } };
      return;
    }
    prose.push({ line: lineNumber, text: line.replace(/(`+)(?:(?!\1).)+?\1/g, (span) => ' '.repeat(span.length)) });
  });
  assert.equal(fence, null, `a code fence opened and never closed`);
  return { prose, blocks };
}

/** GitHub's anchor for a heading's text (github-slugger): lowercase, punctuation dropped, spaces to hyphens. */
function slug(heading) {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  for (const { text: line } of parseMarkdown(text).prose) {
    const heading = line.match(/^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id);
  return anchors;
}

/** Every link target in the file's prose: inline links, images and reference definitions. */
function linksOf(text) {
  const links = [];
  for (const { line, text: prose } of parseMarkdown(text).prose) {
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line, target: match[1] });
    const definition = prose.match(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/);
    if (definition) links.push({ line, target: definition[1] });
    for (const match of prose.matchAll(/<a\s[^>]*href="([^"]+)"/g)) links.push({ line, target: match[1] });
  }
  return links;
}

const files = markdownFiles();
const texts = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));
const anchorCache = new Map();
function anchorsIn(file) {
  if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(texts.get(file) ?? readFileSync(file, 'utf8')));
  return anchorCache.get(file);
}

/** The problem with one link from `file`, or null when it resolves. */
function brokenLink(file, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null; // another site
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const resolved = pathPart === '' ? file : pathPart.startsWith('/') ? join(ROOT, pathPart) : resolve(dirname(file), pathPart);
  if (resolved !== ROOT && !resolved.startsWith(ROOT + sep)) return `${target} leaves the repository`;
  if (!existsSync(resolved)) return `${target}: ${relative(ROOT, resolved)} does not exist`;
  if (anchor !== null && resolved.endsWith('.md') && statSync(resolved).isFile()) {
    if (!anchorsIn(resolved).has(anchor)) return `${target}: no heading #${anchor} in ${relative(ROOT, resolved)}`;
  }
  return null;
}

test('the markdown checked here includes every guide', () => {
  const names = files.map((file) => relative(ROOT, file));
  for (const expected of ['README.md', 'crates/relay/README.md', 'crates/terminal/README.md', 'demo/README.md', 'bench/RESULTS.md', 'docs/api.md']) {
    assert.ok(names.includes(expected.split('/').join(sep)), `${expected} is checked`);
  }
});

test('every relative link and #anchor between the markdown files resolves', () => {
  const broken = [];
  for (const file of files) {
    for (const { line, target } of linksOf(texts.get(file))) {
      const problem = brokenLink(file, target);
      if (problem) broken.push(`${relative(ROOT, file)}:${line}: ${problem}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the link check itself catches a missing file and a missing anchor', () => {
  const readme = join(ROOT, 'README.md');
  assert.match(brokenLink(readme, 'docs/no-such-page.md') ?? '', /does not exist/);
  assert.match(brokenLink(readme, 'docs/api.md#no-such-heading') ?? '', /no heading/);
  assert.equal(brokenLink(readme, 'https://example.com/missing'), null);
  assert.equal(slug('1. `koder-elicit prompt [FILE|-]`: one request from a file or stdin'), '1-koder-elicit-prompt-file--one-request-from-a-file-or-stdin');
  assert.equal(slug('Inline, in a chat transcript'), 'inline-in-a-chat-transcript');
});

test(`the README is under ${README_MAX_LINES} lines and links every guide in docs/`, () => {
  const readme = texts.get(join(ROOT, 'README.md'));
  const lines = readme.split('\n').length;
  assert.ok(lines < README_MAX_LINES, `README.md has ${lines} lines`);
  const linked = new Set(
    linksOf(readme)
      .map(({ target }) => target.split('#')[0])
      .filter((target) => target.startsWith('docs/'))
      .map((target) => join(ROOT, target)),
  );
  const guides = files.filter((file) => relative(ROOT, file).startsWith(`docs${sep}`));
  assert.ok(guides.length > 0, 'docs/ has guides');
  for (const guide of guides) assert.ok(linked.has(guide), `README.md links ${relative(ROOT, guide)}`);
});

test("the README's Layout names only paths that exist", () => {
  const readme = texts.get(join(ROOT, 'README.md'));
  const start = readme.indexOf('\n## Layout\n');
  assert.ok(start >= 0, 'README.md has a "## Layout" section');
  const end = readme.indexOf('\n## ', start + 1);
  const layout = readme.slice(start, end === -1 ? undefined : end);
  // Paths are the words with a slash or a file extension: `crates/relay/`, `scripts/bootstrap.sh`.
  const named = new Set();
  for (const [word] of layout.matchAll(/(?<![\w/.-])(?:[\w.-]+\/)+[\w.*-]*|(?<![\w/.-])[\w-]+\.(?:rs|mjs|js|sh|json|md|toml|ftl)\b/g)) {
    named.add(word.replace(/[.,;:]+$/, ''));
  }
  assert.ok(named.size > 10, `the Layout names paths (found ${[...named].join(', ')})`);
  const missing = [...named].filter((path) => {
    if (path.includes('*')) {
      const dir = join(ROOT, dirname(path));
      const pattern = new RegExp(`^${path.split('/').pop().replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`);
      return !existsSync(dir) || !readdirSync(dir).some((name) => pattern.test(name));
    }
    return !existsSync(join(ROOT, path));
  });
  assert.deepEqual(missing, [], 'paths the Layout names that the tree lacks');
});

const PARSED = { js: 'js', mjs: 'js', javascript: 'js', jsx: 'jsx', ts: 'ts', typescript: 'ts', tsx: 'tsx' };

function codeBlocks() {
  const all = [];
  for (const file of files) {
    for (const block of parseMarkdown(texts.get(file)).blocks) {
      all.push({ ...block, file, where: `${relative(ROOT, file)}:${block.line}`, code: block.lines.join('\n') });
    }
  }
  return all;
}

test('every JavaScript, TypeScript and JSON example parses', () => {
  const failures = [];
  let checked = 0;
  for (const block of codeBlocks()) {
    const loader = PARSED[block.language];
    try {
      if (loader) {
        transformSync(block.code, { loader, format: 'esm', logLevel: 'silent' });
        checked += 1;
      } else if (block.language === 'json') {
        JSON.parse(block.code);
        checked += 1;
      }
    } catch (error) {
      failures.push(`${block.where} (${block.language}): ${String(error.message).split('\n').slice(0, 3).join(' ')}`);
    }
  }
  assert.ok(checked >= 20, `only ${checked} examples parsed`);
  assert.deepEqual(failures, []);
});

test('every example marked `run` runs', { timeout: 120_000 }, () => {
  const runnable = codeBlocks().filter((block) => block.flags.includes('run'));
  assert.ok(runnable.some((block) => block.language === 'js'), 'at least one JavaScript example runs');
  assert.ok(runnable.some((block) => block.language === 'sh'), 'at least one shell example runs');
  const scratch = join(ROOT, 'target', 'doc-examples');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const failures = [];
  try {
    for (const [index, block] of runnable.entries()) {
      let run;
      if (block.language === 'js') {
        // Under the repository, so "koder-mcp-elicitation" resolves to this package itself.
        const file = join(scratch, `example-${index}.mjs`);
        writeFileSync(file, block.code);
        run = spawnSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
      } else if (block.language === 'sh') {
        const path = `${join(ROOT, 'target', 'debug')}:${process.env.PATH}`;
        run = spawnSync('bash', ['-euo', 'pipefail', '-c', block.code], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: { ...process.env, PATH: path } });
      } else {
        failures.push(`${block.where}: \`run\` on a ${block.language || 'plain'} block, which this check cannot run`);
        continue;
      }
      if (run.status !== 0) {
        failures.push(`${block.where}: exit ${run.status ?? run.signal}${run.error ? ` (${run.error.message})` : ''}\n${run.stdout}${run.stderr}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  assert.deepEqual(failures, []);
});
