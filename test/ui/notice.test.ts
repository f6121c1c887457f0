import { describe, expect, it } from 'vitest';
import { afterTurn } from './helpers/ui-state.js';
import { TextPrinter } from '../../src/output/text.js';

describe('notice events (e.g. an MCP server stopped)', () => {
  it('the TUI shows a warning notice and the live turn goes on', () => {
    const s = afterTurn('hi', [{ type: 'notice', message: 'MCP server netbox stopped' }]);
    expect(s.entries.at(-1)).toMatchObject({ kind: 'notice', text: '⚠ MCP server netbox stopped', tone: 'warn' });
    expect(s.live?.prompt).toBe('hi');
  });

  it('text one-shot output prints it on stderr as a warning', () => {
    const out: string[] = [];
    const err: string[] = [];
    const p = new TextPrinter({ write: (x: string) => out.push(x) }, { write: (x: string) => err.push(x) }, false);
    p.event({ type: 'content', delta: 'partial' });
    p.event({ type: 'notice', message: 'MCP server netbox stopped' });
    expect(err.join('')).toBe('warning: MCP server netbox stopped\n');
    expect(out.join('')).toBe('partial\n');
  });
});
