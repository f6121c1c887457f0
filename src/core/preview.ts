/**
 * One device of an approval: the diff its commands would make (src/checkpoints/preview.ts),
 * or why there is none. Carried by the `approval` event and the approver's question.
 */
export interface DevicePreview {
  device: string;
  /** unified diff, configuration now → after the commands ('' when they change nothing) */
  diff?: string;
  error?: string;
}
