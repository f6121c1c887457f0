/**
 * "Allow for this session" answers, kept per tool AND per target: an allowance for a
 * config change to PC1 lets the same tool change PC1 again unasked, never PC2. A call is
 * covered only when every target it names (ToolDef.targets: its devices, nodes, links)
 * was allowed for that tool; a tool that declares no targets (a user MCP server's tool)
 * is allowed as a whole. The one rule for every place that remembers such an answer:
 * the gate (the core's session), the TUI's approver and a rewind's topology question.
 */
import type { ToolTargets } from '../core/targets.js';

/** What one call may be allowed for: the tool as a whole, or these targets of it. */
export type AllowanceScope =
  | { whole: true }
  /** `complete`: every target of the call has a name, so an allowance can cover it */
  | { whole: false; keys: string[]; names: string[]; complete: boolean };

/** A target name the model may leave out or garble (`?` is what targets.ts gives a missing device name). */
const named = (n: string | undefined): n is string => n !== undefined && n.trim() !== '' && n !== '?';

/** The scope of a call from its tool's targets; `undefined` targets (the tool declares none): the whole tool. */
export function allowanceScope(targets: ToolTargets | undefined): AllowanceScope {
  if (!targets) return { whole: true };
  const keys: string[] = [];
  const names: string[] = [];
  let complete = true;
  const add = (kind: string, name: string | undefined) => {
    if (!named(name)) {
      complete = false;
      return;
    }
    // the kind keeps a device named like a link (or a node) from standing for it
    const key = `${kind}\u0000${name}`;
    if (keys.includes(key)) return;
    keys.push(key);
    names.push(name);
  };
  for (const d of targets.devices ?? []) add('device', d.name);
  for (const n of targets.nodes ?? []) add('node', n.name);
  for (const l of targets.links ?? []) add('link', l.b ? `${l.a} – ${l.b}` : l.a);
  return { whole: false, keys, names, complete: complete && keys.length > 0 };
}

/** The words of the "allow for this session" choice: `allow <tool> on PC1, PC2 for this session`. */
export function allowanceLabel(tool: string, targets: ToolTargets | undefined, maxNames = 3): string {
  const s = allowanceScope(targets);
  if (s.whole || s.names.length === 0) return `allow ${tool} for this session`;
  const shown = s.names.slice(0, maxNames).join(', ');
  const more = s.names.length - maxNames;
  return `allow ${tool} on ${shown}${more > 0 ? ` and ${more} more` : ''} for this session`;
}

/** Read side, what the pure gate needs. */
export interface AllowanceCheck {
  covers(tool: string, targets: ToolTargets | undefined): boolean;
}

export class SessionAllowances implements AllowanceCheck {
  private readonly wholeTools = new Set<string>();
  private readonly byTool = new Map<string, Set<string>>();

  /** Remembers an "allow for this session" answer to a call of `tool` with these targets. */
  allow(tool: string, targets: ToolTargets | undefined): void {
    const s = allowanceScope(targets);
    if (s.whole) {
      this.wholeTools.add(tool);
      return;
    }
    let keys = this.byTool.get(tool);
    if (!keys) this.byTool.set(tool, (keys = new Set()));
    for (const k of s.keys) keys.add(k);
  }

  /** Whether a call runs unasked: its whole tool was allowed, or every one of its targets was. */
  covers(tool: string, targets: ToolTargets | undefined): boolean {
    if (this.wholeTools.has(tool)) return true;
    const s = allowanceScope(targets);
    if (s.whole || !s.complete) return false;
    const keys = this.byTool.get(tool);
    return keys !== undefined && s.keys.every((k) => keys.has(k));
  }

  get size(): number {
    return this.wholeTools.size + [...this.byTool.values()].reduce((n, k) => n + k.size, 0);
  }

  clear(): void {
    this.wholeTools.clear();
    this.byTool.clear();
  }
}
