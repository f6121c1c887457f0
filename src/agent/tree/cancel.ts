import { shareSignal } from '../../core/shared-signal.js';

/**
 * Stop propagation: every running node has an AbortController whose signal also
 * follows its parent's, so stopping a node stops its whole subtree and nothing else.
 */
export class CancelTree {
  private readonly nodes = new Map<string, AbortController>();

  /** Registers a node under its parent's signal; the returned signal is the node's. */
  register(id: string, parent: AbortSignal): AbortSignal {
    const ac = new AbortController();
    this.nodes.set(id, ac);
    const signal = AbortSignal.any([parent, ac.signal]);
    shareSignal(signal);
    return signal;
  }

  /** Stops one node (and through the signals, its descendants). False when unknown. */
  stop(id: string): boolean {
    const ac = this.nodes.get(id);
    if (!ac) return false;
    ac.abort('aborted');
    return true;
  }

  /** Whether a node is registered (queued or running) now. */
  has(id: string): boolean {
    return this.nodes.has(id);
  }

  release(id: string): void {
    this.nodes.delete(id);
  }
}
