/** The long-lived services of tool calls (ToolContext.services: device pools, …), closed with their owner. */
export async function closeServices(services: Map<string, unknown>): Promise<void> {
  for (const s of services.values()) {
    const c = (s as { close?: () => unknown } | null)?.close;
    if (typeof c === 'function') await Promise.resolve(c.call(s)).catch(() => undefined);
  }
  services.clear();
}
