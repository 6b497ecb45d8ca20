import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * For loops that do CPU work per item (tenant rules over thousands of rows): awaiting the returned
 * function between items yields to the event loop once `sliceMs` has passed since the last yield,
 * so one tenant's long run never holds up other requests for more than a slice.
 */
export function timeSlicer(sliceMs = 10): () => Promise<void> {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    await nextTurn();
    sliceStart = performance.now();
  };
}
