/** An approval preview as plain text (the MCP elicitation message): per device the commands and the diff, bounded. */
import { describe, expect, it } from 'vitest';
import { previewDevice } from '../../src/checkpoints/preview.js';
import { previewText, PREVIEW_TEXT_LIMITS } from '../../src/checkpoints/preview-text.js';
import { approvalMessage } from '../../src/mcp/server/approval.js';

const FRR = ['hostname r1', '!', 'interface lo', ' description old', 'exit', '!', 'end'].join('\n');

describe('previewText', () => {
  it('lists per device its commands, then the diff without its file headers, or why there is none', () => {
    const r1 = { name: 'R1', commands: ['interface lo', ' description new'] };
    const text = previewText(
      [r1, { name: 'R3', commands: ['interface lo'] }, { name: 'SW1', commands: ['set system host-name x'] }],
      [
        previewDevice('R1', r1.commands, { platform: 'frr', config: FRR }),
        previewDevice('R3', ['interface lo'], { error: 'console refused' }),
        previewDevice('SW1', ['set system host-name x'], { platform: 'juniper', config: 'system {}' }),
      ],
    );
    const lines = text.split('\n');
    expect(lines.slice(0, 3)).toEqual(['R1:', '  interface lo', '   description new']);
    expect(lines).toContain('  preview, configuration now → after:');
    expect(lines).toContain('  - description old');
    expect(lines).toContain('  + description new');
    expect(text).not.toMatch(/^ *(---|\+\+\+) /m);
    expect(lines).toContain('  no preview for R3: cannot read R3 (console refused)');
    expect(lines).toContain('  no preview for SW1: juniper devices are not previewed');
  });

  it('says so when the commands change nothing, and shows a preview whose device has no listed commands', () => {
    const same = previewDevice('R1', ['interface lo', ' description old'], { platform: 'frr', config: FRR });
    expect(previewText([{ name: 'R1', commands: ['interface lo', ' description old'] }], [same])).toContain(
      '  preview: no change to the configuration',
    );
    expect(previewText([], [{ device: 'R2', error: 'no preview: timed out' }])).toBe('R2:\n  no preview for R2: timed out');
  });

  it('cuts a long diff and a long command list with a count of what was left out, and long lines', () => {
    const commands = Array.from({ length: 500 }, (_, i) => `ip route 10.${i >> 8}.${i & 255}.0/24 10.0.0.2`);
    const p = previewDevice('R1', commands, { platform: 'frr', config: FRR });
    const lines = previewText([{ name: 'R1', commands }], [p]).split('\n');
    expect(lines).toContain(`  … ${500 - PREVIEW_TEXT_LIMITS.commandLines} more command lines not shown`);
    const diffBody = p.diff!.split('\n').filter((l) => !/^(---|\+\+\+) /.test(l)).length;
    expect(lines).toContain(`  … ${diffBody - PREVIEW_TEXT_LIMITS.diffLines} more diff lines not shown`);
    expect(lines.length).toBe(1 + PREVIEW_TEXT_LIMITS.commandLines + 1 + 1 + PREVIEW_TEXT_LIMITS.diffLines + 1);

    const wide = previewText([{ name: 'R1', commands: ['banner motd ' + 'x'.repeat(1000)] }], undefined).split('\n');
    expect(wide[1]!.length).toBe(PREVIEW_TEXT_LIMITS.lineChars);
    expect(wide[1]!.endsWith('…')).toBe(true);
  });

  it('stops at the total budget and counts the devices it left out', () => {
    const devices = Array.from({ length: 30 }, (_, i) => ({
      name: `R${i + 1}`,
      commands: Array.from({ length: 20 }, (_, j) => `ip route 10.${i}.${j}.0/24 10.0.0.2`),
    }));
    const lines = previewText(devices, undefined).split('\n');
    // 21 lines a device: 14 fit in 300
    expect(lines.filter((l) => /^R\d+:$/.test(l))).toHaveLength(14);
    expect(lines.at(-1)).toBe('… 16 more devices not shown');
    expect(lines.length).toBeLessThanOrEqual(PREVIEW_TEXT_LIMITS.totalLines + 1);
  });
});

describe('the MCP approval message', () => {
  it('shows the devices of a config call with their preview, sanitised for a terminal', () => {
    const args = { device_configs: [{ device_name: 'R1', config_commands: ['interface lo', ' description \u001b[2Jnew'] }] };
    const m = approvalMessage({
      name: 'execute_multiple_device_config_commands',
      args,
      preview: [previewDevice('R1', ['interface lo', ' description new'], { platform: 'frr', config: FRR })],
    });
    expect(m.split('\n')[0]).toBe('gns3-copilot wants to run execute_multiple_device_config_commands, which changes the lab:');
    expect(m).toContain('R1:\n  interface lo\n   description new\n');
    expect(m).toContain('  + description new');
    expect(m).not.toContain('\u001b');
    expect(m.endsWith('\nAllow it?')).toBe(true);
  });

  it('says what a link filter does in one line before its arguments', () => {
    const args = {
      link: 'PC1:e0 SW1:e1',
      action: 'set',
      filters: { bpf: ['icmp'] },
      fault: { scenario: 'link_drop_icmp', parameters: {} },
    };
    const lines = approvalMessage({ name: 'manage_gns3_packet_filter', args }).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'gns3-copilot wants to run manage_gns3_packet_filter, which changes the lab:',
      'PC1:e0 ↔ SW1:e1: drop icmp (fault link_drop_icmp)',
      '{',
    ]);
    expect(lines).toContain('  "link": "PC1:e0 SW1:e1",');
  });

  it('shows the arguments of a call without devices, bounded', () => {
    const m = approvalMessage({ name: 'create_gns3_node', args: { nodes: Array.from({ length: 100 }, (_, i) => `n${i}`) } });
    expect(m).toContain('"nodes": [');
    expect(m).toMatch(/… \d+ more lines not shown\nAllow it\?$/);
  });
});
