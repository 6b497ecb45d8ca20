/** The kinds of work that outlive a request, each keyed by the record it works on. */
export type WorkKind = 'sync';

/**
 * Work the app started that outlives the request that started it (a sync run of an integration):
 * at most one piece per kind and record at a time in this process, and shutdown waits for all of it.
 */
export class BackgroundWork {
  private readonly running = new Map<string, Promise<void>>();

  isRunning(kind: WorkKind, id: string): boolean {
    return this.running.has(`${kind}:${id}`);
  }

  /** Tracks `work` until it settles; returns it. */
  track(kind: WorkKind, id: string, work: Promise<void>): Promise<void> {
    const key = `${kind}:${id}`;
    const tracked = work.finally(() => this.running.delete(key));
    this.running.set(key, tracked);
    return tracked;
  }

  /** Resolves once everything under way has settled (failures included). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }
}
