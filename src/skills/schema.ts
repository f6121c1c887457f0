/**
 * What a valid skill file looks like. Three kinds, one folder each:
 *   device/*.yaml     one platform per file (show commands, config snippets, pitfalls per topic)
 *   packet/*.yaml     `protocols: [...]` packet-analysis entries (tshark filter, fields, checks)
 *   injection/*.yaml  `scenarios: [...]` fault-injection scenarios
 * Users add or override entries by key (platform / protocol / id) in their own skills dir.
 */
import { z } from 'zod';
import { validateCheck } from '../check/load.js';

export const SKILL_KINDS = ['device', 'packet', 'injection'] as const;
export type SkillKind = (typeof SKILL_KINDS)[number];

const text = z.string().trim().min(1);
const key = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9_.-]*$/, 'must be lower-case letters, digits, _ . - (e.g. "cisco_ios")');

// ---------------------------------------------------------------- device

export const deviceCommandSchema = z.strictObject({ command: text, purpose: text });

export const deviceTopicSchema = z.strictObject({
  summary: text,
  commands: z.array(deviceCommandSchema).optional(),
  /** configuration lines in the order they are typed, including mode changes */
  config: z.array(z.string()).optional(),
  verify: z.array(text).optional(),
  pitfalls: z.array(text).optional(),
});

export const deviceSkillSchema = z.strictObject({
  platform: key,
  /** optional so a user file can add topics to a built-in platform */
  name: text.optional(),
  aliases: z.array(key).default([]),
  description: text.optional(),
  topics: z.record(key, deviceTopicSchema).refine((t) => Object.keys(t).length > 0, 'needs at least one topic'),
});

// ---------------------------------------------------------------- packet

export const packetFieldSchema = z.strictObject({
  /** a tshark field name as listed by `tshark -G fields` */
  field: z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'must be a tshark field name such as ip.src'),
  meaning: text,
});

export const packetSkillSchema = z.strictObject({
  protocol: key,
  name: text,
  aliases: z.array(z.string().trim().toLowerCase().min(1)).default([]),
  layer: z.enum(['l2', 'l3', 'routing', 'transport', 'application']),
  description: text,
  /** tshark display filter (-Y) selecting this protocol */
  display_filter: text,
  fields: z.array(packetFieldSchema).min(1),
  checks: z.array(text).min(1),
});

export const packetFileSchema = z.strictObject({ protocols: z.array(packetSkillSchema).min(1) });

// ---------------------------------------------------------------- injection

/** GNS3 link filters and their parameter ranges (GET /links/{id}/available_filters). */
export const LINK_FILTERS: Record<string, { min: number; max: number }[] | 'text'> = {
  frequency_drop: [{ min: -1, max: 32767 }],
  packet_loss: [{ min: 0, max: 100 }],
  delay: [
    { min: 0, max: 32767 },
    { min: 0, max: 32767 },
  ],
  corrupt: [{ min: 0, max: 100 }],
  bpf: 'text',
};

const linkFilterSchema = z.record(z.string(), z.array(z.union([z.number(), z.string()]))).superRefine((filters, ctx) => {
  const names = Object.keys(filters);
  if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'needs at least one filter' });
  for (const name of names) {
    const spec = LINK_FILTERS[name];
    const values = filters[name] ?? [];
    if (!spec) {
      ctx.addIssue({ code: 'custom', path: [name], message: `unknown filter; use one of ${Object.keys(LINK_FILTERS).join(', ')}` });
      continue;
    }
    if (spec === 'text') {
      // GNS3 wants ONE string; several expressions are separated by newlines inside it.
      if (values.length !== 1 || typeof values[0] !== 'string' || values[0].trim() === '')
        ctx.addIssue({ code: 'custom', path: [name], message: 'must be one non-empty string (expressions separated by newlines)' });
      continue;
    }
    if (values.length < 1 || values.length > spec.length)
      ctx.addIssue({ code: 'custom', path: [name], message: `takes 1..${spec.length} integer values` });
    values.forEach((v, i) => {
      const range = spec[i];
      if (!range) return;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < range.min || v > range.max)
        ctx.addIssue({ code: 'custom', path: [name, i], message: `must be an integer in ${range.min}..${range.max}` });
    });
    if (values[0] === 0) ctx.addIssue({ code: 'custom', path: [name, 0], message: 'a first value of 0 disables the filter' });
  }
});

export const injectionParameterSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be snake_case'),
  description: text,
  example: z.union([z.string(), z.number()]).transform(String),
});

const commandsByPlatform = z.record(key, z.array(text).min(1));

const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g;

/**
 * How a model's answer is scored against the scenario (gns3-copilot eval): an answer that
 * localizes the fault names the device (from the injection) and one of these words or phrases.
 */
export const diagnosisSchema = z.strictObject({
  keywords: z.array(z.string().trim().toLowerCase().min(2).max(40)).min(1).max(12),
  /**
   * `config`: a device change repairs it, and the repair check says when (scored on diagnosis
   * and repair); `none`: no device configuration removes it (a link filter) — scored on diagnosis only.
   */
  repair: z.enum(['config', 'none']).default('config'),
});

/** The keywords a text contains as whole words or phrases (case-insensitive). */
export function keywordsIn(text: string, keywords: readonly string[]): string[] {
  const t = text.toLowerCase();
  return keywords.filter((k) => new RegExp(`(^|[^a-z0-9])${k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^a-z0-9])`).test(t));
}

export const injectionScenarioSchema = z
  .strictObject({
    id: key,
    title: text,
    category: key,
    severity: z.enum(['low', 'medium', 'high', 'critical']),
    difficulty: z.enum(['easy', 'medium', 'hard']),
    platforms: z.array(key).min(1),
    target: z.enum(['device', 'link']),
    description: text,
    parameters: z.array(injectionParameterSchema).default([]),
    /** target device: configuration lines per platform */
    inject: commandsByPlatform.optional(),
    restore: commandsByPlatform.optional(),
    /** target link: the filters manage_gns3_packet_filter sets */
    link_filter: linkFilterSchema.optional(),
    symptoms: z.array(text).min(1),
    hints: z.array(text).min(1),
    verify: z.array(text).optional(),
    /**
     * The check (src/check/schema.ts) that passes once the fault is gone: the fault
     * ledger's repair check. `{{device}}` is the target device, other placeholders are
     * parameters. Link faults without one get "the link carries no filter".
     */
    repair_check: z.record(z.string(), z.unknown()).optional(),
    /** the symptom in a user's words, with no hint of the cause: the trouble ticket an eval gives the agent */
    ticket: text.optional(),
    diagnosis: diagnosisSchema.optional(),
  })
  .superRefine((s, ctx) => {
    scoringIssues(s, ctx);
    if (s.repair_check) {
      const declared = new Set(['device', ...s.parameters.map((p) => p.name)]);
      for (const m of JSON.stringify(s.repair_check).matchAll(PLACEHOLDER))
        if (!declared.has(m[1]!))
          ctx.addIssue({ code: 'custom', path: ['repair_check'], message: `placeholder {{${m[1]}}} is not declared in parameters` });
      const examples = { device: 'R1', ...Object.fromEntries(s.parameters.map((p) => [p.name, p.example])) };
      const r = validateCheck(fillCheck(s.repair_check, examples), ['repair_check']);
      if (!r.ok) ctx.addIssue({ code: 'custom', path: r.issue.path, message: r.issue.message });
    }
    if (s.target === 'link') {
      if (!s.link_filter) ctx.addIssue({ code: 'custom', path: ['link_filter'], message: 'required when target is link' });
      if (s.inject || s.restore) ctx.addIssue({ code: 'custom', path: ['inject'], message: 'link faults use link_filter, not inject/restore' });
      return;
    }
    if (s.link_filter) ctx.addIssue({ code: 'custom', path: ['link_filter'], message: 'only for target link' });
    for (const side of ['inject', 'restore'] as const) {
      const cmds = s[side];
      if (!cmds) {
        ctx.addIssue({ code: 'custom', path: [side], message: 'required when target is device' });
        continue;
      }
      for (const p of s.platforms)
        if (!cmds[p]) ctx.addIssue({ code: 'custom', path: [side, p], message: `missing commands for listed platform ${p}` });
      for (const p of Object.keys(cmds))
        if (!s.platforms.includes(p)) ctx.addIssue({ code: 'custom', path: [side, p], message: `platform ${p} is not in platforms` });
      const declared = new Set(s.parameters.map((p) => p.name));
      for (const [platform, lines] of Object.entries(cmds))
        lines.forEach((line, i) => {
          for (const m of line.matchAll(PLACEHOLDER))
            if (!declared.has(m[1]!))
              ctx.addIssue({ code: 'custom', path: [side, platform, i], message: `placeholder {{${m[1]}}} is not declared in parameters` });
        });
    }
  });

/** A ticket that gives the cause away or a repair that cannot be checked is refused when the file loads. */
function scoringIssues(
  s: { target: 'device' | 'link'; ticket?: string | undefined; diagnosis?: z.infer<typeof diagnosisSchema> | undefined; repair_check?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (s.ticket !== undefined) {
    if (new RegExp(PLACEHOLDER.source).test(s.ticket))
      ctx.addIssue({ code: 'custom', path: ['ticket'], message: 'a ticket is plain text: no {{placeholders}}' });
    const given = keywordsIn(s.ticket, s.diagnosis?.keywords ?? []);
    if (given.length > 0)
      ctx.addIssue({ code: 'custom', path: ['ticket'], message: `gives the cause away: it says ${given.map((k) => `"${k}"`).join(', ')} (a diagnosis keyword)` });
  }
  if (!s.diagnosis) return;
  if (s.target === 'link' && s.diagnosis.repair !== 'none')
    ctx.addIssue({
      code: 'custom',
      path: ['diagnosis', 'repair'],
      message: 'a link filter is not repaired by device configuration: say repair: none (scored on diagnosis only)',
    });
  if (s.diagnosis.repair === 'config' && !s.repair_check)
    ctx.addIssue({
      code: 'custom',
      path: ['diagnosis', 'repair'],
      message: 'repair: config needs a repair_check that tells when the fault is gone (or repair: none, scored on diagnosis only)',
    });
}

export const injectionFileSchema = z.strictObject({ scenarios: z.array(injectionScenarioSchema).min(1) });

export type DeviceTopic = z.infer<typeof deviceTopicSchema>;
export type DeviceSkill = z.infer<typeof deviceSkillSchema>;
export type PacketSkill = z.infer<typeof packetSkillSchema>;
export type InjectionScenario = z.infer<typeof injectionScenarioSchema>;

/** A check with its string values' placeholders filled (a repair check of a scenario). */
export function fillCheck(check: Record<string, unknown>, values: Record<string, string>): Record<string, unknown> {
  const fill = (v: unknown): unknown =>
    typeof v === 'string'
      ? fillPlaceholders(v, values)
      : Array.isArray(v)
        ? v.map(fill)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]))
          : v;
  return fill(check) as Record<string, unknown>;
}

/** Replace {{name}} placeholders with values; unknown names stay as they are. */
export function fillPlaceholders(line: string, values: Record<string, string>): string {
  return line.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}
