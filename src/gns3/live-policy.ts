/**
 * Whether the copilot may listen to a project's notification stream. The controller
 * closes a project whose `auto_close` is on (the default for projects created through the
 * API) 5 s after the last listener of its project stream leaves — every node stops — so a
 * copilot that listened and exited would shut the lab down when no GNS3 GUI is attached.
 * It listens only where that cannot happen, or where the user said `notifications: always`.
 */
export type NotificationsPolicy = 'auto' | 'always' | 'never';

export interface StreamDecision {
  subscribe: boolean;
  /** one line for `doctor` and the log */
  reason: string;
}

export function streamDecision(policy: NotificationsPolicy, autoClose: boolean | undefined): StreamDecision {
  // a project object without the key is treated as the server's default
  const closes = autoClose !== false;
  if (policy === 'never')
    return { subscribe: false, reason: 'notifications is never: the topology is read over REST before every LLM call' };
  if (policy === 'always')
    return {
      subscribe: true,
      reason: closes
        ? 'notifications is always and the project has auto_close on: the controller closes it (stopping its nodes) 5 s after the copilot leaves unless another client listens'
        : 'live topology from the notification stream (the project has auto_close off)',
    };
  return closes
    ? {
        subscribe: false,
        reason:
          'the project has auto_close on: the copilot does not listen (the controller would close the project when it leaves); drift comes from topology reads. Turn auto_close off, or set notifications always to listen anyway',
      }
    : { subscribe: true, reason: 'live topology from the notification stream (the project has auto_close off)' };
}
