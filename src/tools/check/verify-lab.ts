/**
 * verify_lab: runs checks (a check file by path, or inline checks in the same
 * schema) against the live lab through the deterministic checker and returns the
 * per-check results. Read-only: the checker sends only show/ping commands.
 */
import { z } from 'zod';
import { validateCheck, formatPath, loadCheckFile } from '../../check/load.js';
import { runChecks } from '../../check/run.js';
import { defaultName, KINDS, type Check } from '../../check/schema.js';
import { poolFor } from '../../devices/engine.js';
import { errorMessage } from '../../errors.js';
import { count } from '../../core/plural.js';
import { defineTool, failure } from '../types.js';
import { guarded } from '../gns3/common.js';

const EXAMPLE =
  '{"ospf_neighbor":{"device":"R1","neighbor":"10.255.255.2","state":"Full"}}, {"ping":{"from":"PC1","to":"10.0.2.10"}}, ' +
  '{"route":{"device":"R2","prefix":"10.0.1.0/24","protocol":"ospf"}}, {"command":{"device":"R1","run":"show ip route","expect":{"contains":"10.0.2.0/24"}}}';

/** The check syntax, in short: the model reads it by calling verify_lab without arguments. */
export const CHECK_SYNTAX =
  'A check: {kind:{…},name?,points?}; kinds: node{name,status?} link{a:"R1:e0",b,clean?} interface{device,name,state?,ip?} ' +
  'ospf_neighbor{device,neighbor,state?} bgp_peer{device,peer,state?} route{device,prefix,via?,protocol?,present?} ping{from,to} ' +
  'config{device,section?,has?|lacks?} command{device,run,expect:{contains}}';

export const verifyLab = defineTool({
  name: 'verify_lab',
  description:
    'Verify the live lab deterministically: run checks (a check file by path, or inline checks) and get pass/fail/error per check ' +
    'with the device output line that decided it and a score. Read-only. Without arguments: the check syntax. Kinds: ' +
    `${KINDS.join(', ')}. Each check is an object with one kind key, optional name and points, e.g. ${EXAMPLE}. ` +
    'interface {device,name,state?,ip?}; bgp_peer {device,peer,state?}; route {device,prefix,via?,protocol?,present?}; ' +
    'config {device,section?,has?|lacks?}; node {name,status?}; link {a:"R1:e0",b:"R2:e0",clean?}.',
  brief: 'Run lab checks; no args: check syntax.',
  risk: 'read',
  schema: z.object({
    file: z.string().min(1).optional().describe('path of a check file (YAML or JSON)'),
    checks: z.array(z.record(z.string(), z.unknown())).min(1).max(500).optional().describe('inline checks, same schema as a check file'),
    only: z.array(z.string().min(1)).optional().describe('run only the checks with these names'),
  }),
  run: (args, ctx) =>
    guarded(async () => {
      // no arguments: how to write a check (the model's schema leaves the syntax out, it costs tokens on every call)
      if (args.file === undefined && args.checks === undefined)
        return { status: 'success', data: { syntax: CHECK_SYNTAX, kinds: [...KINDS] }, display: 'the check syntax' };
      if (args.file !== undefined && args.checks !== undefined) return failure('give either file or checks');
      let checks: Check[] = [];
      if (args.file !== undefined) {
        try {
          checks = (await loadCheckFile(args.file)).checks;
        } catch (err) {
          return failure(errorMessage(err));
        }
      } else {
        for (const [i, raw] of args.checks!.entries()) {
          const r = validateCheck(raw, ['checks', i]);
          if (!r.ok) return failure(`${formatPath(r.issue.path)}: ${r.issue.message}`);
          checks.push(r.check);
        }
      }
      if (args.only?.length) {
        const want = new Set(args.only.map((n) => n.toLowerCase()));
        checks = checks.filter((c) => want.has((c.name ?? defaultName(c)).toLowerCase()));
        if (checks.length === 0) return failure('no check has one of the names in "only"');
      }
      const project = await ctx.project();
      const report = await runChecks(checks, {
        project,
        settings: ctx.settings,
        pool: poolFor(ctx.services, ctx.settings, ctx.log),
        signal: ctx.signal,
        log: ctx.log,
      });
      const display = `${report.passed}/${count(report.checks.length, 'check')} pass · score ${report.score}/${report.max_score}`;
      // The call worked even when checks fail: the verdicts are the data, not a tool error.
      return { status: 'success', data: { ...report }, display };
    }),
});
