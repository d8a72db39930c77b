// The types of scripts/release/tarball.mjs (test/package/package.test.ts checks the tarball with it).
export interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string; size: number }[];
}
export declare const PACKAGE_BOUNDS: { packed: number; unpacked: number };
export declare function tarballProblems(
  packed: Packed,
  pkg?: { exports: Record<string, string | Record<string, string>>; bin?: Record<string, string> },
): string[];
