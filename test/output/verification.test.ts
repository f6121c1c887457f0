/**
 * The `verification` event through the one-shot fold and the stored transcript: `--json` carries
 * it on the call, a kept regression is exit 7 (a rewound one is not, inject mode's report-only one
 * never counts), the regressed calls are paired with what they checkpointed, and `sessions
 * show`/`export` read it back from the stored tool message.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import type { Verification } from '../../src/core/verification.js';
import { RegressionWatch, rewindQuestion } from '../../src/core/regressions.js';
import { ResultBuilder, exitCodeOf } from '../../src/output/summary.js';
import { toolMessage } from '../../src/agent/history.js';
import { encodeMessage, transcriptEntry } from '../../src/sessions/message-log.js';
import { toTranscript, transcriptMarkdown } from '../../src/sessions/transcript.js';
import type { SessionRow } from '../../src/sessions/types.js';

const NAME = 'execute_multiple_device_config_commands';
const lost: Verification = {
  status: 'regressed',
  regressions: [{ device: 'R2', kind: 'ospf_neighbor', what: '10.255.255.1', before: 'Full', after: 'absent' }],
  intended: [],
  settle_ms: 1500,
};

let nextCheckpoint = 1;
const events = (v: Verification, id = 'c1'): AgentEvent[] => [
  { type: 'tool_call', id, name: NAME, args: {} },
  { type: 'checkpoint', id, name: NAME, device: 'R2', checkpoint_id: nextCheckpoint++ },
  { type: 'checkpoint', id, name: NAME, device: 'R3', checkpoint_id: nextCheckpoint++ },
  { type: 'tool_end', id, name: NAME, status: 'success', duration_ms: 5, output: '{}' },
  { type: 'verification', id, name: NAME, ...v },
];

describe('the verification event', () => {
  it('--json carries it on the call; a kept regression exits 7, a rewound one 0', () => {
    const b = new ResultBuilder('lab_automation_assistant');
    for (const e of events(lost)) b.add(e);
    b.add({
      type: 'done',
      stopped_reason: 'done',
      stats: { iterations: 1, llm_calls: 1, tool_calls: 1, input_tokens: 1, output_tokens: 1, duration_ms: 1 },
    });
    expect(b.result().tool_calls[0]!.verification).toEqual(lost);
    expect(exitCodeOf(b.result())).toBe(0);
    b.setRegression({ action: 'keep', status: 'kept', calls: ['c1'], devices: ['R2', 'R3'], checkpoints: [4, 5] });
    expect(exitCodeOf(b.result())).toBe(7);
    b.setRegression({ action: 'rewind', status: 'not_rewound', calls: ['c1'], devices: ['R2', 'R3'], checkpoints: [4, 5] });
    expect(exitCodeOf(b.result())).toBe(7);
    b.setRegression({ action: 'rewind', status: 'rewound', calls: ['c1'], devices: ['R2', 'R3'], checkpoints: [4, 5] });
    expect(exitCodeOf(b.result())).toBe(0);
  });

  it('the watch pairs a regressed call with its checkpointed devices; passes and report-only ones are not regressions', () => {
    const w = new RegressionWatch();
    for (const e of [
      ...events(lost),
      ...events({ ...lost, report_only: true }, 'fault'),
      ...events({ status: 'pass', regressions: [], intended: [], settle_ms: 1 }, 'ok'),
      ...events({ status: 'error', regressions: [], intended: [], settle_ms: 0, reason: 'cannot reach R4' }, 'err'),
    ])
      w.add(e);
    expect(w.regressed().map((c) => [c.id, c.devices])).toEqual([['c1', ['R2', 'R3']]]);
    expect(w.devices()).toEqual(['R2', 'R3']);
    const [r2, r3] = w.regressed()[0]!.checkpoints;
    expect(w.checkpoints()).toEqual([r2, r3]);
    expect(rewindQuestion(w.regressed(), w.devices())).toBe('R2 lost OSPF neighbour 10.255.255.1: rewind R2, R3? y/n');
  });

  it("rewinds to the checkpoint taken before the regressed call: an earlier call's checkpoint of the device is not it", () => {
    const w = new RegressionWatch();
    const ok: Verification = { status: 'pass', regressions: [], intended: [], settle_ms: 1 };
    const first = events(ok, 'desc');
    const cut = events(lost, 'cut');
    const later = events(lost, 'again');
    for (const e of [...first, ...cut, ...later]) w.add(e);
    const ids = (ev: AgentEvent[]) =>
      ev.flatMap((e) => (e.type === 'checkpoint' && e.checkpoint_id !== undefined ? [e.checkpoint_id] : []));
    expect(w.regressed().map((c) => c.id)).toEqual(['cut', 'again']);
    // per device the checkpoint before the first regressed call that changed it; never the passing call's
    expect(w.checkpoints()).toEqual(ids(cut));
    // a checkpoint event without an id (a failed capture, the topology) gives nothing to rewind
    const bare = new RegressionWatch();
    for (const e of events(lost, 'x'))
      bare.add(e.type === 'checkpoint' ? { type: 'checkpoint', id: e.id, name: e.name, device: e.device } : e);
    expect(bare.devices()).toEqual([]);
    expect(bare.checkpoints()).toEqual([]);
  });

  it('is stored with the tool message and read back by sessions show/export', () => {
    const msg = toolMessage(
      { id: 'c1', name: NAME },
      { status: 'success', output: '{"status":"success"}', display: '1 device ok', verification: lost },
    );
    const row = encodeMessage(msg);
    const fromRow = transcriptEntry(row);
    expect(fromRow.verification).toEqual(lost);
    expect(toTranscript([msg])[0]!.verification).toEqual(lost);
    const md = transcriptMarkdown({ id: 's', title: 't', message_count: 1 } as SessionRow, [fromRow]);
    expect(md).toContain('Verification: ✗ regressed: R2 ospf_neighbor 10.255.255.1 Full → absent');
    expect(md).toContain('- regression: R2 ospf_neighbor 10.255.255.1: Full → absent');
    // a result without one has none
    expect(
      transcriptEntry(encodeMessage(toolMessage({ id: 'c2', name: NAME }, { status: 'success', output: '{}' }))).verification,
    ).toBeUndefined();
  });
});
