// The relay's modules form layers: no import circle among crates/relay/src's top-level modules
// (a file, or a folder taken whole), none among the files of one folder, no source file over 600
// lines, and the service layer knows nothing of HTTP (no axum under service/). Read from the code's own `use` lines and `crate::`/`super::` paths, test modules
// (`#[cfg(test)]` onward) left out: a test may reach anywhere.
//
//   node --test tests/repo/relay-modules.test.mjs      prints the layers, bottom first
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SRC = join(ROOT, 'crates', 'relay', 'src');
const MAX_LINES = 600;

function rustFiles(dir = SRC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return rustFiles(path);
    return entry.name.endsWith('.rs') ? [path] : [];
  });
}

/** A file's module path: `store/outbox.rs` → ['store', 'outbox'], `store/mod.rs` → ['store']. */
function modulePath(file) {
  const parts = relative(SRC, file).split(sep);
  const last = parts.pop().replace(/\.rs$/, '');
  if (last !== 'mod' && !(parts.length === 0 && (last === 'lib' || last === 'main'))) parts.push(last);
  return parts;
}

/** The source without comments, string literals and test modules. */
function code(text) {
  const cut = text.search(/^\s*#\[cfg\(test\)\]/m);
  return (cut >= 0 ? text.slice(0, cut) : text)
    .replace(/\/\/[^\n]*/g, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/r#*"[\s\S]*?"#*/g, '""')
    .replace(/"(?:[^"\\]|\\.)*"/g, '""');
}

/** Every path a `use` tree names: `crate::{a::B, c::{d, e}}` → crate::a::B, crate::c::d, crate::c::e. */
function expandUse(tree) {
  const text = tree.replace(/\s+/g, '');
  const open = text.indexOf('{');
  if (open < 0) return [text];
  const prefix = text.slice(0, open);
  const inner = text.slice(open + 1, text.lastIndexOf('}'));
  const items = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i += 1) {
    const c = inner[i];
    if (c === '{') depth += 1;
    if (c === '}') depth -= 1;
    if ((c === ',' && depth === 0) || i === inner.length) {
      const item = inner.slice(start, i);
      if (item) items.push(...expandUse(item).map((rest) => prefix + rest));
      start = i + 1;
    }
  }
  return items;
}

/** The module paths a file refers to, from `crate::` and `super::` paths, made absolute. */
function references(file) {
  const here = modulePath(file);
  // A `mod.rs` (or lib.rs) is its module; another file's `super` is its folder.
  const own = /(^|[/\\])(mod|lib|main)\.rs$/.test(file) ? here : here.slice(0, -1);
  const source = code(readFileSync(file, 'utf8'));
  const paths = [];
  for (const [, tree] of source.matchAll(/\buse\s+([^;]+);/g)) paths.push(...expandUse(tree));
  for (const [path] of source.replace(/\buse\s+[^;]+;/g, '').matchAll(/\b(?:crate|super)(?:::\w+)+/g)) {
    paths.push(path);
  }
  const resolved = [];
  for (const path of paths) {
    const parts = path.split('::').filter((part) => part && part !== 'self' && part !== '*');
    if (parts[0] === 'crate') resolved.push(parts.slice(1));
    else if (parts[0] === 'super') {
      let base = own;
      while (parts[0] === 'super') {
        base = base.slice(0, -1);
        parts.shift();
      }
      // A `super` from a mod.rs's child file is the folder (`own`), one level up from the file.
      resolved.push([...(own === here ? base : own), ...parts]);
    }
  }
  return resolved;
}

/** The circles of a graph (Map node → Set of nodes), each as a list of nodes. */
function circles(graph) {
  const found = [];
  const state = new Map();
  const stack = [];
  const visit = (node) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

/** The layers of an acyclic graph, bottom (imports nothing of the graph) first. */
function layers(graph) {
  const floor = new Map();
  const height = (node) => {
    if (!floor.has(node)) {
      floor.set(node, 0);
      floor.set(node, Math.max(0, ...[...(graph.get(node) ?? [])].map((next) => height(next) + 1)));
    }
    return floor.get(node);
  };
  const rows = [];
  for (const node of [...graph.keys()].sort()) (rows[height(node)] ??= []).push(node);
  return rows;
}

const files = rustFiles();
const known = new Set(files.map((file) => modulePath(file).join('/')));
/** The file a module path lands in: its longest prefix that is a file of the tree. */
function landing(parts) {
  for (let n = parts.length; n > 0; n -= 1) {
    const key = parts.slice(0, n).join('/');
    if (known.has(key)) return key;
  }
  return null;
}

const topLevel = new Map();
const byFolder = new Map();
for (const file of files) {
  const from = modulePath(file);
  const fromKey = from.join('/');
  if (from.length === 0) continue; // lib.rs and main.rs sit above every module.
  const top = topLevel.get(from[0]) ?? new Set();
  topLevel.set(from[0], top);
  for (const target of references(file)) {
    const to = landing(target);
    if (!to) continue;
    const toTop = to.split('/')[0];
    if (toTop !== from[0]) top.add(toTop);
    // Within one folder: a file importing a sibling (a folder's mod.rs declares and re-exports
    // its children, so its edges down to them are not imports).
    const folder = from.slice(0, -1).join('/');
    const toFolder = to.split('/').slice(0, -1).join('/');
    const isChildOfFrom = to.startsWith(`${fromKey}/`);
    if (from.length > 1 && to !== fromKey && toFolder === folder && !isChildOfFrom) {
      const graph = byFolder.get(folder) ?? new Map();
      byFolder.set(folder, graph);
      if (!graph.has(fromKey)) graph.set(fromKey, new Set());
      graph.get(fromKey).add(to);
    }
  }
}

test('the relay\'s top-level modules import each other without a circle', () => {
  const found = circles(topLevel);
  assert.deepEqual(found.map((circle) => circle.join(' → ')), [], 'import circles among modules');
  const rows = layers(topLevel);
  for (const [n, row] of rows.entries()) console.log(`layer ${n}: ${row.join(', ')}`);
  assert.ok(rows.length > 3, 'the modules were read');
});

test('the files of each relay folder import each other without a circle', () => {
  const found = [...byFolder.values()].flatMap((graph) => circles(graph));
  assert.deepEqual(found.map((circle) => circle.join(' → ')), [], 'import circles among files');
});

test('no relay source file is over 600 lines', () => {
  const long = files
    .map((file) => [relative(ROOT, file), readFileSync(file, 'utf8').split('\n').length - 1])
    .filter(([, lines]) => lines > MAX_LINES);
  assert.deepEqual(long, [], `files over ${MAX_LINES} lines`);
});

test('nothing under the relay\'s service/ names axum: the service knows nothing of HTTP', () => {
  const service = files.filter((file) => relative(SRC, file).startsWith(`service${sep}`));
  assert.ok(service.length > 3, 'the service files were read');
  const naming = service.filter((file) => /\baxum\b/.test(readFileSync(file, 'utf8')));
  assert.deepEqual(naming.map((file) => relative(ROOT, file)), []);
});
