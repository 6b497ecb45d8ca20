import type { Caller } from './caller';
import type { Loaders } from './loaders';

/** The per-request context of every resolver: small and always complete. App-wide services come as the root value (app-services.ts). */
export interface Context extends Caller {
  loaders: Loaders;
}
