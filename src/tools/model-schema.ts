/**
 * The JSON Schema of a tool's arguments, derived from its zod schema (the one source
 * of truth: zod validates the full shape at dispatch). Two renderings:
 * - `modelParameters`: what the model is shown on every LLM call, so every token counts —
 *   no bounds (zod's error names them when a call breaks one), no property-name schemas,
 *   a property described only by its `brief` (zod `.meta({ brief })`; none: its name and
 *   type say enough), no `required` that lists every property, and only the
 *   arguments the mode can use (`ToolDef.argModes`: `fault` only in inject mode);
 * - `fullParameters`: the whole shape with every description and bound, minus the
 *   arguments the mode cannot use (MCP clients list it; they read it once).
 * docs/tools.md, What the model is shown.
 */
import { z } from 'zod';
import type { CopilotMode } from '../core/modes.js';
import type { ToolDef } from './types.js';

type Json = Record<string, unknown>;

/** Keywords the model does without: zod enforces them and its error message says which was broken. */
const BOUNDS = new Set([
  '$schema',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'propertyNames',
  'default',
]);

/** The arguments' JSON Schema from zod; a schema zod cannot render accepts any object. */
export function derivedParameters(def: Pick<ToolDef, 'schema' | 'jsonSchema'>): Json {
  try {
    const s = def.jsonSchema ? { ...def.jsonSchema } : (z.toJSONSchema(def.schema, { io: 'input', unrepresentable: 'any' }) as Json);
    delete s.$schema;
    return s;
  } catch {
    return { type: 'object', properties: {}, additionalProperties: true };
  }
}

/** Drops the top-level properties the mode cannot use (and their `required` entries). */
function forMode(params: Json, def: Pick<ToolDef, 'argModes'>, mode: CopilotMode): Json {
  const hidden = Object.entries(def.argModes ?? {})
    .filter(([, modes]) => !modes.includes(mode))
    .map(([arg]) => arg);
  if (!hidden.length || typeof params.properties !== 'object' || params.properties === null) return params;
  const properties = { ...(params.properties as Json) };
  for (const arg of hidden) delete properties[arg];
  const out: Json = { ...params, properties };
  if (Array.isArray(params.required)) {
    const required = (params.required as string[]).filter((r) => !hidden.includes(r));
    if (required.length) out.required = required;
    else delete out.required;
  }
  return out;
}

/** The full schema of the mode's arguments, descriptions and bounds kept (`brief` is the model's, dropped here). */
export function fullParameters(def: Pick<ToolDef, 'schema' | 'jsonSchema' | 'argModes'>, mode: CopilotMode): Json {
  return forMode(
    walk(derivedParameters(def), (node) => omit(node, 'brief')),
    def,
    mode,
  );
}

/** The compact schema the model is shown in a mode. */
export function modelParameters(def: Pick<ToolDef, 'name' | 'schema' | 'jsonSchema' | 'argModes'>, mode: CopilotMode): Json {
  // a user's MCP server's tool (`server__tool`): its schema is theirs, shown as they wrote it
  if (def.name.includes('__')) return derivedParameters(def);
  return forMode(walk(derivedParameters(def), compactNode), def, mode);
}

function omit(node: Json, key: string): Json {
  if (!(key in node)) return node;
  const { [key]: _gone, ...rest } = node;
  return rest;
}

function compactNode(node: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (BOUNDS.has(k) || k === 'brief' || k === 'description') continue;
    // a record's value schema: the description says what goes in it
    if (k === 'additionalProperties' && typeof v === 'object') continue;
    out[k] = v;
  }
  // every property required: the model fills them all without being told, and zod names one it left out
  if (Array.isArray(out.required) && out.properties && out.required.length === Object.keys(out.properties).length) delete out.required;
  // a property's words for the model are opt-in: its `brief`, when it has one
  if (typeof node.brief === 'string' && node.brief) out.description = node.brief;
  return out;
}

/** Applies `f` to every schema node, bottom-up (properties, items, unions). */
function walk(node: unknown, f: (n: Json) => Json): Json {
  const n = node as Json;
  const out: Json = { ...n };
  if (n.properties && typeof n.properties === 'object')
    out.properties = Object.fromEntries(Object.entries(n.properties as Json).map(([k, v]) => [k, walk(v, f)]));
  if (n.items && typeof n.items === 'object' && !Array.isArray(n.items)) out.items = walk(n.items, f);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    if (Array.isArray(n[key])) out[key] = (n[key] as unknown[]).map((s) => walk(s, f));
  if (n.additionalProperties && typeof n.additionalProperties === 'object') out.additionalProperties = walk(n.additionalProperties, f);
  return f(out);
}
