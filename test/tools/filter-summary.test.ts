/** The one line a link-filter call is approved by: which link, and what happens to its traffic, in words. */
import { describe, expect, it } from 'vitest';
import { linkEnds, packetFilterSummary } from '../../src/tools/filter-summary.js';

describe('packetFilterSummary', () => {
  it('names the link by its ends and each filter in words', () => {
    expect(packetFilterSummary({ link: 'PC1:e0 SW1:e1', action: 'set', filters: { bpf: ['icmp'] } })).toBe('PC1:e0 ↔ SW1:e1: drop icmp');
    expect(packetFilterSummary({ link: 'R1 R2', action: 'set', filters: { packet_loss: [30], delay: [100, 10] } })).toBe(
      'R1 ↔ R2: lose 30% of packets, delay 100 ms ± 10 ms',
    );
    expect(packetFilterSummary({ link: 'R1:e0 <-> R2:e0', action: 'set', filters: { delay: 50, corrupt: [5] } })).toBe(
      'R1:e0 ↔ R2:e0: delay 50 ms, corrupt 5% of packets',
    );
    expect(packetFilterSummary({ link: 'a1b2', action: 'set', filters: { frequency_drop: [-1] } })).toBe('a1b2: drop every packet');
    expect(packetFilterSummary({ link: 'a1b2', action: 'set', filters: { frequency_drop: [3], packet_loss: [0] } })).toBe(
      'a1b2: drop 1 packet in 3, packet_loss off',
    );
    expect(packetFilterSummary({ link: 'R1 R2', action: 'set', filters: { bpf: ['icmp\nudp port 53'] } })).toBe(
      'R1 ↔ R2: drop icmp or udp port 53',
    );
    expect(packetFilterSummary({ link: 'R1 R2', action: 'set', filters: { shaper: [1, 'x'] } })).toBe('R1 ↔ R2: shaper 1/x');
  });

  it('says what clear, get and get_available do, and which fault scenario a set applies', () => {
    expect(packetFilterSummary({ link: 'R1 R2', action: 'clear' })).toBe('R1 ↔ R2: clear every filter');
    expect(packetFilterSummary({ link: 'R1 R2', action: 'clear', filters: { bpf: [] } })).toBe('R1 ↔ R2: clear bpf');
    expect(packetFilterSummary({ link: 'R1 R2', action: 'get' })).toBe('R1 ↔ R2: read its filters');
    expect(packetFilterSummary({ link: 'R1 R2', action: 'get_available' })).toBe('R1 ↔ R2: list the filters it takes');
    expect(
      packetFilterSummary({ link: 'PC1:e0 SW1:e1', action: 'set', filters: { bpf: ['icmp'] }, fault: { scenario: 'link_drop_icmp' } }),
    ).toBe('PC1:e0 ↔ SW1:e1: drop icmp (fault link_drop_icmp)');
  });

  it('is nothing without a link; a link it cannot split stays as the model wrote it', () => {
    expect(packetFilterSummary({ action: 'set', filters: { bpf: ['icmp'] } })).toBeUndefined();
    expect(packetFilterSummary({ link: '  ', action: 'get' })).toBeUndefined();
    expect(linkEnds('R1 e0 R2 e0')).toBe('R1 e0 R2 e0');
  });
});
