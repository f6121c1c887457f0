/** Tool calls as a scripted model sends them (fake LLM replies). */

/** An execute_multiple_device_commands call running `commands` on one device. */
export const commandCall = (device: string, commands: string[], id = 'c1') => ({
  id,
  name: 'execute_multiple_device_commands',
  args: { device_configs: [{ device_name: device, commands }] },
});
