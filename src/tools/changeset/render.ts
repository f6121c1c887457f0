/**
 * Rendering a change set's template once per device (LiquidJS: the `{{ x }}`, `{% for %}`,
 * `{% if %}` and filter syntax engineers know from Ansible and Nornir). Strict: an undefined
 * variable or filter is an error that names the device and the variable. Sandboxed: only a
 * scope's own properties resolve (no `constructor`, no prototype walk), there is no file
 * system behind `include`/`render`/`layout`, and parse/render/memory are bounded, so a
 * template can compute text and nothing else. docs/tools.md, apply_config_template.
 */
import { Liquid, type FS } from 'liquidjs';

/** What a template sees of its device besides the variables (docs/tools.md, Facts). */
export interface DeviceFacts {
  name: string;
  /** 1-based position in the expansion */
  index: number;
  platform: string;
  interfaces: InterfaceFact[];
}

export interface InterfaceFact {
  name: string;
  /** the first IPv4 address without its length ('' when none) */
  address: string;
  prefix_length: number | null;
  /** the address's network in CIDR ('' when unknown) */
  network: string;
  state: string;
}

export interface RenderInput {
  template: string;
  vars: Record<string, unknown>;
  device_vars: Record<string, Record<string, unknown>>;
}

export type RenderResult = { ok: true; text: string } | { ok: false; error: string; variable?: string };

/** No file system: a template that names another file renders nothing. */
const NO_FS: FS = {
  exists: () => Promise.resolve(false),
  existsSync: () => false,
  readFile: (file: string) => Promise.reject(new Error(`templates cannot read files (${file})`)),
  readFileSync: (file: string) => {
    throw new Error(`templates cannot read files (${file})`);
  },
  resolve: (_root: string, file: string) => file,
  contains: () => Promise.resolve(false),
  sep: '/',
};

let engine: Liquid | undefined;

/** One engine for the process: its options are the sandbox. */
function liquid(): Liquid {
  engine ??= new Liquid({
    strictVariables: true,
    strictFilters: true,
    ownPropertyOnly: true,
    fs: NO_FS,
    root: [],
    partials: [],
    layouts: [],
    relativeReference: false,
    dynamicPartials: false,
    // a template is a few hundred lines for a hundred devices: these bound a runaway loop
    parseLimit: 200_000,
    renderLimit: 2_000,
    memoryLimit: 20_000_000,
  });
  return engine;
}

/** `undefined variable: area` / `undefined filter: foo` → the name; the engine's position suffix dropped. */
function explain(err: unknown): { error: string; variable?: string } {
  const raw = err instanceof Error ? err.message : String(err);
  const first = raw.split('\n')[0]!.replace(/, line:\d+, col:\d+$/, '');
  const v = /^undefined variable: (.+)$/.exec(first)?.[1];
  if (v !== undefined) return { error: `undefined variable "${v}"`, variable: v };
  const f = /^undefined filter: (.+)$/.exec(first)?.[1];
  if (f !== undefined) return { error: `undefined filter "${f}"`, variable: f };
  return { error: first };
}

/** The scope of one device: shared vars, its own vars over them, and its facts as `device`. */
export function scopeOf(input: RenderInput, facts: DeviceFacts): Record<string, unknown> {
  return { ...input.vars, ...(input.device_vars[facts.name] ?? {}), device: facts };
}

export function renderFor(input: RenderInput, facts: DeviceFacts): RenderResult {
  try {
    const text = liquid().parseAndRenderSync(input.template, scopeOf(input, facts)) as unknown;
    return typeof text === 'string' ? { ok: true, text } : { ok: false, error: 'the template did not render to text' };
  } catch (err) {
    return { ok: false, ...explain(err) };
  }
}

/** Checks the template parses at all, before any device is read (a syntax error names no device). */
export function parseError(template: string): string | undefined {
  try {
    liquid().parse(template);
    return undefined;
  } catch (err) {
    return explain(err).error;
  }
}

/**
 * Rendered text → the commands it sends: one line one command, blank lines dropped, trailing
 * blanks trimmed, a leading tab read as indentation (the template's layout, not content).
 */
export function renderedLines(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((l) => l.replace(/^[\t ]+/, (lead) => lead.replace(/\t/g, ' ')).trimEnd())
    .filter((l) => l.trim() !== '');
}
