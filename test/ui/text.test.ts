import { describe, expect, it } from 'vitest';
import { renderMarkdown, wrapLine } from '../../src/ui/markdown.js';
import { displayWidth, stripAnsi, colorEnabled } from '../../src/ui/style.js';
import { InputHistory, looksSecret } from '../../src/ui/history.js';
import { summarizeArgs, deviceRows, deviceOutputs, approvalLines, resultNote } from '../../src/ui/call-text.js';
import { compactNumber, formatDuration, limitsText } from '../../src/ui/format.js';

const md = (s: string, width = 60, color = false) => renderMarkdown(s, { width, color });

describe('markdown renderer', () => {
  const sample = '# Title\nSome **bold** and `code` and *it*.\n\n- one\n- two\n  - nested\n- [x] done\n1. first\n> quoted';

  it('renders headings, lists, quotes and inline styles as styles when colour is on', () => {
    const out = md(sample, 60, true).map(stripAnsi);
    expect(out).toEqual(['Title', 'Some bold and code and it.', '', '• one', '• two', '  ◦ nested', '• ☑ done', '1. first', '│ quoted']);
  });

  it('keeps the Markdown markers when colour is off (NO_COLOR), so code stays recognisable', () => {
    expect(md(sample)).toEqual([
      '# Title',
      'Some **bold** and `code` and *it*.',
      '',
      '- one',
      '- two',
      '  - nested',
      '- [x] done',
      '1. first',
      '> quoted',
    ]);
    expect(md('## Fix\nRun `ip 192.168.1.10/24 192.168.1.1` on PC1, then __save__.')).toEqual([
      '## Fix',
      'Run `ip 192.168.1.10/24 192.168.1.1` on PC1, then __save__.',
    ]);
    // a code span that contains a backtick keeps its longer fence
    expect(md('``a`b``')).toEqual(['``a`b``']);
  });

  it('styles with ANSI when colour is on and never when off', () => {
    expect(md('**b**', 40, true)[0]).toContain('\u001b[1m');
    expect(md('**b** `c`', 40, false).join('')).not.toContain('\u001b[');
  });

  it('wraps paragraphs to the width with a hanging indent for list items', () => {
    const out = md('- ' + 'word '.repeat(30), 30);
    expect(out.length).toBeGreaterThan(1);
    for (const l of out) expect(displayWidth(l)).toBeLessThanOrEqual(30);
    expect(out[1]!.startsWith('  ')).toBe(true);
  });

  it('keeps device output alignment in code blocks (no reflow, tabs expanded)', () => {
    const code = [
      'Neighbor ID     Pri   State           Dead Time   Address         Interface',
      '2.2.2.2           1   FULL/DR         00:00:38    10.0.12.2       eth0',
    ];
    const out = md('```\n' + code.join('\n') + '\n```', 100);
    expect(out).toEqual(['┌─', ...code, '└─']);
    expect(md('```\na\tb\n```', 40)[1]).toBe('a       b');
  });

  it('renders an unterminated fence (mid-stream) as code', () => {
    expect(md('text\n```\nR1#  show  run', 40)).toEqual(['text', '┌─', 'R1#  show  run']);
  });

  it('renders tables with aligned columns and fits them to the width', () => {
    const out = md('| Device | State |\n|---|---:|\n| R1 | Full |\n| R22 | 2-Way |', 40);
    expect(out).toEqual([' Device │ State', '────────┼───────', ' R1     │  Full', ' R22    │ 2-Way']);
    const wide = md('| a | b |\n|---|---|\n| ' + 'x'.repeat(80) + ' | y |', 30);
    for (const l of wide) expect(displayWidth(l)).toBeLessThanOrEqual(30);
    expect(wide[2]).toContain('…');
  });

  it('wraps styled lines and reopens styles on the next line', () => {
    const lines = wrapLine('\u001b[1m' + 'bold '.repeat(10) + '\u001b[22m', 12);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[1]!.startsWith('\u001b[1m')).toBe(true);
    expect(stripAnsi(lines.join(' ')).replace(/\s+/g, ' ').trim()).toBe('bold '.repeat(10).trim());
  });
});

describe('colour switch', () => {
  it('honours NO_COLOR, TERM=dumb and --no-color', () => {
    expect(colorEnabled(true, {})).toBe(true);
    expect(colorEnabled(true, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled(true, { TERM: 'dumb' })).toBe(false);
    expect(colorEnabled(false, {})).toBe(false);
  });
});

describe('input history', () => {
  it('browses with prev/next and restores the draft', () => {
    const h = new InputHistory();
    h.push('show ospf');
    h.push('show bgp');
    expect(h.prev('dra')).toBe('show bgp');
    expect(h.prev('')).toBe('show ospf');
    expect(h.prev('')).toBe('show ospf');
    expect(h.next()).toBe('show bgp');
    expect(h.next()).toBe('dra');
  });

  it.each([
    'my key is sk-abcdefghijklmnop1234',
    'password hunter2',
    'set api_key=abc123',
    'enable secret cisco123',
    'username admin password Cisco',
    'token: ghp_abcdefghijklmnopqrstuvwx',
    'Bearer abcdefghijklmnopqrstuvwxyz',
    'a8f5f167f44f4964e6c998dee827110c9a8f5f167f44',
  ])('never stores secret-looking lines: %s', (line) => {
    const h = new InputHistory();
    expect(looksSecret(line)).toBe(true);
    expect(h.push(line)).toBe(false);
    expect(h.entries).toEqual([]);
  });

  it('keeps ordinary network lines', () => {
    for (const l of ['configure ospf area 0 on R1-R3', 'why is R2 not a neighbor of R3?', 'show ip route 10.0.0.0/8']) {
      expect(looksSecret(l)).toBe(false);
    }
  });
});

describe('tool summaries', () => {
  it('groups devices running the same commands', () => {
    const args = { device_configs: ['R1', 'R2', 'R3'].map((d) => ({ device_name: d, commands: ['show ip ospf neighbor'] })) };
    expect(summarizeArgs('execute_multiple_device_commands', args)).toBe('R1, R2, R3: show ip ospf neighbor');
    const cfg = { device_configs: [{ device_name: 'R1', config_commands: ['router ospf 1', 'network 10.0.0.0/8 area 0'] }] };
    expect(summarizeArgs('execute_multiple_device_config_commands', cfg)).toBe('R1: router ospf 1; network 10.0.0.0/8 area 0');
    expect(summarizeArgs('create_gns3_link', { links: [{ node_a: 'R1', port_a: 'e0', node_b: 'R2', port_b: 'e1' }] })).toBe(
      'R1 e0 ↔ R2 e1',
    );
    expect(summarizeArgs('create_gns3_node', { nodes: [{ template: 'VPCS', name: 'PC1' }] })).toBe('PC1 (VPCS)');
    expect(summarizeArgs('start_gns3_node', { nodes: ['R1', 'R2'] })).toBe('R1, R2');
    expect(summarizeArgs('x', { q: 'a'.repeat(200) }, 20)).toHaveLength(20);
  });

  it('turns per-device output into table rows and command outputs', () => {
    const devices = [
      {
        device_name: 'R1',
        status: 'success',
        results: [{ command: 'show ip ospf neighbor', status: 'success', output: 'Neighbor ID ...', duration_ms: 40 }],
        blocked: [],
        duration_ms: 52,
      },
      { device_name: 'R2', status: 'error', results: [], blocked: [], error: 'connection refused', duration_ms: 3 },
    ];
    const out = JSON.stringify({ status: 'partial', devices });
    expect(deviceRows(out)).toEqual([
      { device: 'R1', status: 'success', commands: 1, duration_ms: 52, note: '' },
      { device: 'R2', status: 'error', commands: 0, duration_ms: 3, note: 'connection refused' },
    ]);
    expect(deviceOutputs(out)?.[0]).toMatchObject({ device: 'R1', command: 'show ip ospf neighbor', output: 'Neighbor ID ...' });
    // only the device tools' shape: no guessing at other arrays or key names
    expect(deviceRows(JSON.stringify(devices))).toBeUndefined();
    expect(deviceRows(JSON.stringify({ results: [{ name: 'R1', status: 'success' }] }))).toBeUndefined();
    expect(deviceRows('not json')).toBeUndefined();
    expect(deviceRows('{"status":"success"}')).toBeUndefined();
  });

  it('notes a result by its display line, else its error message, else its first line', () => {
    expect(resultNote('{"status":"error","error":"x"}', 'all 2 devices failed: R1: refused')).toBe('all 2 devices failed: R1: refused');
    expect(resultNote('{"status":"blocked","error":"the user denied it"}', undefined)).toBe('the user denied it');
    expect(resultNote('\nplain text\nmore', undefined)).toBe('plain text');
  });

  it('lists device and command lines for approval', () => {
    const args = { device_configs: [{ device_name: 'R1', config_commands: ['interface e0', 'shutdown'] }] };
    expect(approvalLines('execute_multiple_device_config_commands', args)).toEqual([{ target: 'R1', lines: ['interface e0', 'shutdown'] }]);
  });
});

describe('format', () => {
  it('formats numbers, durations and limits', () => {
    expect(compactNumber(128_000)).toBe('128K');
    expect(compactNumber(1500)).toBe('1.5K');
    expect(compactNumber(2_500_000)).toBe('2.5M');
    expect(formatDuration(420)).toBe('420ms');
    expect(formatDuration(2300)).toBe('2.3s');
    expect(formatDuration(95_000)).toBe('1m35s');
    expect(limitsText(3, 20, 5, undefined)).toBe('iter 3/20 · tools 5/∞');
  });
});

describe('line editor', () => {
  const k = (over: Partial<import('ink').Key> = {}) => ({
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    super: false,
    hyper: false,
    capsLock: false,
    numLock: false,
    ...over,
  });
  it('inserts, moves, deletes and kills', async () => {
    const { editLine } = await import('../../src/ui/editor.js');
    let st = { value: '', cursor: 0 };
    const apply = (input: string, key = k()) => {
      const r = editLine(st, input, key);
      if (r.kind === 'edit') st = r.state;
      return r;
    };
    apply('show ip');
    apply('', k({ leftArrow: true }));
    apply('', k({ leftArrow: true }));
    apply('X');
    expect(st).toEqual({ value: 'show Xip', cursor: 6 });
    apply('', k({ backspace: true }));
    expect(st.value).toBe('show ip');
    apply('w', k({ ctrl: true }));
    expect(st.value).toBe('ip');
    apply('e', k({ ctrl: true }));
    apply(' route');
    expect(apply('', k({ return: true }))).toEqual({ kind: 'submit', value: 'ip route' });
    expect(apply('', k({ upArrow: true }))).toEqual({ kind: 'history', direction: 'prev' });
    expect(apply('', k({ tab: true }))).toEqual({ kind: 'complete' });
    apply('u', k({ ctrl: true }));
    expect(st.value).toBe('');
  });

  it('treats a burst ending in Enter as typed-ahead text plus submit, and pasted newlines as spaces', async () => {
    const { editLine } = await import('../../src/ui/editor.js');
    expect(editLine({ value: '', cursor: 0 }, '/mode lab\r', k())).toEqual({ kind: 'submit', value: '/mode lab' });
    expect(editLine({ value: '', cursor: 0 }, 'a\nb', k())).toEqual({ kind: 'edit', state: { value: 'a b', cursor: 3 } });
  });
});
