/**
 * lib/pi: which pi is installed and how it runs, read from its files without importing or running
 * it (find.ts: the package, under either npm scope; command.ts: the `pi` command on PATH and its
 * Node), and pi's saved full outputs (full-output.ts).
 */
export { findPi, type PiSearch } from "./find.ts";
export { PI_SCOPES, piPackageOf, type PiInstall, type PiScope, type PiSource } from "./package.ts";
export { readPiCommand, trustedProgram, untrustedRoots, whichTrusted, type PiCommand } from "./command.ts";
export {
  MAX_PI_FULL_OUTPUT_BYTES,
  piFullOutputPath,
  readPiFullOutput,
  readPiFullOutputEnds,
  type PiFullOutputEnds,
  type PiFullOutputOptions,
} from "./full-output.ts";
