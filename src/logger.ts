import type { Config } from './config';

/** Structured JSON lines on stdout. Callers pass facts, never secrets (no bodies, headers or tokens). */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

export function createLogger(level: Config['logLevel']): Logger {
  const threshold = LEVELS.indexOf(level);
  const write =
    (at: (typeof LEVELS)[number]) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (LEVELS.indexOf(at) < threshold) return;
      const line = JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields }, (_key, value) =>
        value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value,
      );
      (at === 'error' || at === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
