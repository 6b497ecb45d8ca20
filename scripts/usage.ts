// Every script answers --help (or -h) with its usage and does nothing else.

/** Prints `usage` and exits 0 when the arguments ask for help. */
export function helpRequested(usage: string): void {
  if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
    console.log(usage.trim());
    process.exit(0);
  }
}
