/**
 * The device layer's public shapes: what the device tools return per device
 * and per command. Transports, drivers and the pool live beside this file.
 */

/** a device's result in the tools' one vocabulary (OutcomeStatus): every command ran, some did, none did */
export type DeviceStatus = 'success' | 'partial' | 'error';
export type CommandStatus = 'success' | 'error' | 'blocked' | 'timeout' | 'aborted';

export interface CommandResult {
  command: string;
  status: CommandStatus;
  output: string;
  /** device error line (`% Invalid input…`) or the reason it was not run */
  error?: string;
  /** characters of output the console buffer dropped between the head and tail it kept */
  omitted_chars?: number;
  duration_ms: number;
}

export interface DeviceResult {
  device_name: string;
  status: DeviceStatus;
  platform?: string;
  transport?: 'telnet' | 'ssh';
  results: CommandResult[];
  blocked: string[];
  error?: string;
  /** the console could not be connected to (refused, unreachable, timed out): nothing was sent, trying again may work */
  transient?: true;
  /** nothing was sent to the device (with `transient`: the connection failed before the first command) */
  unsent?: true;
  duration_ms: number;
}
