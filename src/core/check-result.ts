/**
 * One `doctor` line: what was checked, whether it passed, and the exit code a failed
 * required check gives the run. Shared by src/commands/doctor.ts and the checks other
 * areas contribute (src/mcp/client/doctor.ts), so those do not import the command.
 */
export interface CheckResult {
  name: string;
  ok: boolean;
  /** a failed required check makes doctor exit non-zero */
  required: boolean;
  detail: string;
  /** the exit code when this required check fails (docs/cli.md, Exit codes) */
  exitCode?: number;
}
