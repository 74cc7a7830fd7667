import { existsSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { readDot } from '../dot/index.js';
import { InvalidInputError, NotFoundError } from '../errors/errors.js';
import { parseParamDeclarations, type ParamDeclaration } from '../model/params.js';
import type { PlanGraph } from '../model/types.js';
import { firstParagraph, readHeaderComment } from './header.js';
import { packagePath } from '../config/package-path.js';

/** What `dotplan template list` shows of a template. */
export interface TemplateInfo {
  /** File name without `.dot`; what `--template <name>` takes. */
  name: string;
  /** The graph's `label` attribute, else the name. */
  title: string;
  /** First paragraph of the header comment. */
  description: string;
  params: ParamDeclaration[];
  path: string;
  /** Set when the file cannot be read as a template (the listing still shows it). */
  error?: string;
}

/** A loaded template: its text, header comment and parsed graph. */
export interface Template extends Omit<TemplateInfo, 'error'> {
  dot: string;
  /** The whole header comment, one entry per line, comment markers removed. */
  header: string[];
  graph: PlanGraph;
}

/** The package's own `templates/`. */
export function packageTemplatesDir(): string {
  return packagePath('templates');
}

/** The package's templates, then `./templates` under the working directory when present and distinct. */
export function defaultTemplateDirs(cwd: string = process.cwd()): string[] {
  const dirs = [packageTemplatesDir()];
  const local = resolve(cwd, 'templates');
  if (isDirectory(local) && !dirs.some((d) => sameDir(d, local))) dirs.push(local);
  return dirs;
}

/** Every `*.dot` in the directories, sorted by name; when two share a name the first directory wins. */
export function listTemplates(dirs: readonly string[] = defaultTemplateDirs()): TemplateInfo[] {
  const byName = new Map<string, TemplateInfo>();
  for (const dir of dirs) {
    if (!isDirectory(dir)) continue;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.dot')).sort()) {
      const name = basename(file, '.dot');
      if (byName.has(name)) continue;
      byName.set(name, describe(join(dir, file)));
    }
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * One key per template look-up: the directories searched, the working directory (a path is resolved
 * against it) and the name or path asked for — for what is kept of a look-up (here, where a name was
 * found; a worker's PreparedTemplates, the template itself for a second).
 */
export function templateKey(nameOrPath: string, dirs: readonly string[], cwd: string): string {
  return [...dirs, cwd, nameOrPath].join('\u0000');
}

/** A template by name (from `listTemplates(dirs)`) or by path (relative to `cwd`) to a `.dot` file. */
export function loadTemplate(nameOrPath: string, dirs: readonly string[] = defaultTemplateDirs(), cwd: string = process.cwd()): Template {
  if (looksLikePath(nameOrPath, cwd)) {
    if (!nameOrPath.endsWith('.dot')) {
      throw new InvalidInputError(`template ${JSON.stringify(nameOrPath)} looks like a path but is not a .dot file; give a template name (see \`dotplan template list\`) or the path of a .dot file`);
    }
    const path = resolve(cwd, nameOrPath);
    if (!isFile(path)) throw new NotFoundError(`template file ${nameOrPath} does not exist`);
    return readTemplate(path);
  }
  const name = nameOrPath.endsWith('.dot') ? nameOrPath.slice(0, -4) : nameOrPath;
  if (!TEMPLATE_NAME.test(name)) throw new InvalidInputError(`${JSON.stringify(name)} is not a template name (letters, digits, ".", "_", "-"); see \`dotplan template list\``);
  // Where the name was found before, while its file is there and no directory before it has one since:
  // one stat per load when it was found in the first directory, not one per directory.
  const key = templateKey(name, dirs, cwd);
  const known = foundAt.get(key);
  const shadowed = known !== undefined && dirs.slice(0, known.dir).some((dir) => isFile(join(dir, `${name}.dot`)));
  if (known !== undefined && !shadowed) {
    try {
      return readTemplate(known.path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      foundAt.delete(key);
    }
  }
  // The first directory holding `<name>.dot` wins (as in listTemplates); the listing is read only to say what there is.
  const paths = dirs.map((dir) => join(dir, `${name}.dot`));
  const dir = paths.findIndex((path) => isFile(path));
  const found = paths[dir];
  if (!found) {
    const names = listTemplates(dirs).map((t) => t.name).join(', ') || '(none)';
    throw new NotFoundError(`no template named "${name}"; available: ${names}`);
  }
  if (foundAt.size >= 1000) foundAt.clear();
  foundAt.set(key, { path: found, dir });
  return readTemplate(found);
}

/**
 * Where a template name was found, per list of directories; looked up again once that file is gone, or
 * once a directory before it holds the name too (the first directory wins, as in listTemplates).
 */
const foundAt = new Map<string, { path: string; dir: number }>();

/** Templates read, by path, while their file is unchanged (size and mtime): a worker making agents' children reads each once. */
const readTemplates = new Map<string, { size: number; mtimeMs: number; template: Template }>();

/** Reads and parses one template file; throws ValidationError (bad DOT) or InvalidInputError (bad params). */
export function readTemplate(path: string): Template {
  const stat = statSync(path);
  const known = readTemplates.get(path);
  if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.template;
  const template = parseTemplate(path);
  readTemplates.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, template });
  return template;
}

function parseTemplate(path: string): Template {
  const dot = readFileSync(path, 'utf8');
  const graph = readDot(dot, { source: path });
  const parsed = parseParamDeclarations(graph.attributes.params);
  if (!parsed.ok) throw new InvalidInputError(`${path}: the params attribute is not valid: ${parsed.reason}`);
  const name = basename(path, extname(path));
  const header = readHeaderComment(dot);
  return {
    name,
    title: graph.attributes.label?.trim() || name,
    description: firstParagraph(header),
    params: parsed.params,
    path,
    dot,
    header,
    graph,
  };
}

function describe(path: string): TemplateInfo {
  try {
    const { name, title, description, params } = readTemplate(path);
    return { name, title, description, params, path };
  } catch (error) {
    const name = basename(path, '.dot');
    let description = '';
    try {
      description = firstParagraph(readHeaderComment(readFileSync(path, 'utf8')));
    } catch {
      // unreadable file: the error says so
    }
    return { name, title: name, description, params: [], path, error: (error as Error).message };
  }
}

/**
 * A template is named by its name, looked up among the shipped templates and ./templates only; a
 * file is read only when the argument looks like a path (a "/" or "\\", or an existing file ending in
 * .dot) and names a .dot file — so that a name can never reach an arbitrary file.
 */
const TEMPLATE_NAME = /^[A-Za-z0-9][\w.-]*$/;

function looksLikePath(value: string, cwd: string): boolean {
  return value.includes('/') || value.includes('\\') || (value.endsWith('.dot') && existsSync(resolve(cwd, value)));
}

const isFile = (path: string): boolean => statOf(path)?.isFile() ?? false;
const isDirectory = (path: string): boolean => statOf(path)?.isDirectory() ?? false;

/**
 * What is at the path, or undefined when nothing is or it cannot be read (EACCES, ENOTDIR ...). A
 * missing path throws no exception: most template dirs lack most names, and building one costs more than the stat.
 */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function sameDir(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return resolve(a) === resolve(b);
  }
}
